/**
 * A pod's volumes and mounts as kube-apiserver 1.34.4 answers them
 * (fixtures/pod-volume-answers.json, recorded by tools/reference/record-answers.ts): ConfigMap,
 * Secret, projected, downward API, emptyDir, hostPath, ephemeral, image, CSI, NFS and iSCSI
 * sources; their items, paths and modes; mounts, sub-paths, propagation and recursive read-only.
 * A new ephemeral volume's claim template owns its empty metadata: a struct Go holds by value
 * is in a new element's typed object even when the request leaves it out.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'pod-volume-answers.json'));
