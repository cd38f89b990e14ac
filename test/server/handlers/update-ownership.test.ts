/**
 * What an ordinary write (update or merge patch, not apply) leaves of the other managers' fields,
 * as kube-apiserver 1.34.4 recorded it (fixtures/recorded-update-ownership.json) on ConfigMaps,
 * a Deployment and its status, and a custom resource and its status: a write takes from every
 * manager the fields it removed and those it changed, and nothing else. A manager keeps a field
 * the object no longer has when the write did not remove it: an empty map it applied that
 * storage dropped, or a field in managedFields the writer sent. A custom resource put without
 * its resourceVersion is refused naming its resource, as the reference names it there.
 */
import { join } from 'node:path';
import { replayManagedFieldsSteps } from './recorded-managed-fields-steps';

replayManagedFieldsSteps(join(__dirname, 'fixtures', 'recorded-update-ownership.json'), []);
