/**
 * The Pod Security Standards' checks, table-driven: each pod of the fixture evaluated at a level
 * and version must give exactly the violations kube-apiserver v1.34.4 named when it enforced
 * that level and version on the same pod (recorded in fixtures/pod-security-standards.json; ''
 * where it admitted the pod).
 */
import { podSecurityEvaluator, violationText } from '../../../server/admission/plugins/pod-security/checks';
import { parseLevel, parseVersion } from '../../../server/admission/plugins/pod-security/levels';
import fixture from './fixtures/pod-security-standards.json';

interface RecordedPod {
  readonly metadata: { readonly annotations?: Record<string, string> };
  readonly spec: Record<string, unknown>;
}

const pods = fixture.pods as Record<string, RecordedPod>;
const evaluator = podSecurityEvaluator({ relaxForUserNamespacePods: false });

describe('Pod Security Standards checks', () => {
  it.each(fixture.expected.map((row) => [row.pod, row.policy, row.violations] as const))(
    '%s at %s',
    (name, policy, violations) => {
      const [levelText, versionText] = policy.split(':');
      const levelVersion = { level: parseLevel(levelText)!, version: parseVersion(versionText)! };
      const pod = pods[name];
      expect(
        violationText(
          evaluator.evaluate(levelVersion, { annotations: pod.metadata.annotations ?? {}, spec: pod.spec }),
        ),
      ).toBe(violations);
    },
  );

  it('relaxes the user and /proc checks for user-namespaced pods only when the gate asks', () => {
    const relaxed = podSecurityEvaluator({ relaxForUserNamespacePods: true });
    const pod = pods.procmount;
    const view = { annotations: {}, spec: pod.spec };
    const latestBaseline = { level: 'baseline' as const, version: parseVersion('latest')! };
    expect(violationText(evaluator.evaluate(latestBaseline, view))).toBe(
      'procMount (container "c" must not set securityContext.procMount to "Unmasked")',
    );
    expect(violationText(relaxed.evaluate(latestBaseline, view))).toBe('');
  });
});
