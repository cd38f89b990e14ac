/**
 * A Node's `spec.configSource` and `status.config` (the removed DynamicKubeletConfig), as
 * kube-apiserver 1.34.4 answered them (fixtures/recorded-node-config-source.json): a create, an
 * update or a status write that brings them anew has them dropped without a word; a node stored
 * with them (written straight to storage here, as an older server left it) keeps them, has them
 * checked on every update and status write, and hears that the feature is removed on an update.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from './recorded-steps';

type Json = Record<string, unknown>;

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-node-config-source.json'),
  resource: 'nodes',
  shown: (node) => ({
    configSource: (node.spec as Json | undefined)?.configSource ?? null,
    config: (node.status as Json | undefined)?.config ?? null,
  }),
});
