/**
 * CSIDrivers, CSINodes, VolumeAttachments and CSIStorageCapacities as kube-apiserver 1.34.4
 * answers them (fixtures/csi-and-attachment-answers.json, recorded by
 * tools/reference/record-answers.ts): driver names, lifecycle modes, fsGroup policy, token
 * requests; node drivers, IDs, topology keys, counts; attachers, sources, node names, status;
 * capacities and their fixed class and topology. A CSIDriver's generation is raised by each spec
 * change but not set on create (the client's is kept); a VolumeAttachment's fixed spec is shown
 * as the internal struct marshals.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'csi-and-attachment-answers.json'));
