/**
 * Storage, ingress, node and coordination classes as kube-apiserver 1.34.4 judges them
 * (fixtures/storage-answers.json, recorded by tools/reference/record-answers.ts, all dry runs):
 * StorageClass and VolumeAttributesClass parameters (at most 512, no empty key), CSI drivers,
 * nodes and capacities, IngressClass controllers (a domain-prefixed path of at most 250 bytes),
 * RuntimeClasses and Leases; a new VolumeAttributesClass carries `kubernetes.io/vac-protection`.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'storage-answers.json'));
