/**
 * Which fields a write is credited with when it sends values at their zero, as kube-apiserver
 * 1.34.4 records them (fixtures/zero-value-managed-fields.json, recorded by
 * tools/reference/record-answers.ts): a create compares against the kind's zero Go struct, so a
 * plain non-omitempty member sent at zero is no change (a ResourceSlice's `pool.generation: 0`,
 * a ControllerRevision's `revision: 0`); an omitempty member at zero is no field at all (a
 * PriorityClass's `description: ""`, an Event's `count: 0`, a port's `name: ""`); server-side
 * apply, updates and the scale subresource over the same kinds.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'zero-value-managed-fields.json'));
