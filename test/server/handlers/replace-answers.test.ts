/**
 * Whole objects replaced by PUT without what the server filled in at create (a `kubectl replace`
 * of the original manifest), as kube-apiserver 1.34.4 answers (fixtures/replace-answers.json,
 * recorded by tools/reference/record-answers.ts): Services keep their cluster IPs, node ports
 * and health check port, or give them up with their type; immutable ConfigMaps and Secret
 * types; a Namespace's finalizers; a Job's generated selector and its fixed template (printed as
 * the reference prints the internal struct); Deployments, StatefulSets, claims and CronJobs.
 * fixtures/replace-more-answers.json: Nodes, PersistentVolumes, RoleBindings, PriorityClasses,
 * StorageClasses, webhook configurations, ReplicationControllers, ReplicaSets, DaemonSets and
 * autoscalers (one replaced through autoscaling/v1, read back through v2).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'replace-answers.json'));
testRecordedAnswers(join(__dirname, 'fixtures', 'replace-more-answers.json'));
