/**
 * ClusterTrustBundleAttest, on by default. capstan does not serve ClusterTrustBundles
 * (certificates.k8s.io v1beta1 and v1alpha1 are not among its group-versions), so the plugin is
 * taken from the default chain and asked directly, with RBAC deciding who may attest: the
 * decisions and messages are those of kube-apiserver v1.34.4 for the same writes.
 */
import type { KubeObject } from '../../../api/objects';
import { selectAdmissionPlugins } from '../../../server/admission/plugins';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../../../server/admission/types';
import { admissionAttributes } from '../../helpers/admission-attributes';
import { staticPolicySource } from '../../../server/authz/rbac/policy-source';
import { rbacAuthorizer } from '../../../server/authz/rbac/rbac-authorizer';
import { RuleResolver } from '../../../server/authz/rbac/rule-resolver';
import { serviceResolver } from '../../../server/proxy/service-endpoint';

const clusterRole = (name: string, resourceNames: string[]): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name },
  rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames, verbs: ['attest'] }],
});
const binding = (role: string, user: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: `${role}-${user}` },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

// alice may attest for one signer by name; carol for every signer of example.com by the wildcard.
const authorizer = rbacAuthorizer(
  new RuleResolver(
    staticPolicySource([
      clusterRole('one-signer', ['example.com/one']),
      binding('one-signer', 'alice'),
      clusterRole('domain-signers', ['example.com/*']),
      binding('domain-signers', 'carol'),
    ]),
  ),
);

function defaultPlugin(gateOn: boolean): AdmissionPlugin | undefined {
  const { plugins } = selectAdmissionPlugins(
    { enable: [], disable: ['NamespaceLifecycle'] },
    {
      storageOf: () => {
        throw new Error('not asked');
      },
      services: serviceResolver(() => {
        throw new Error('not asked');
      }, true),
      tolerationSeconds: { notReady: 300, unreachable: 300 },
      authorizer,
      featureEnabled: (gate) => gateOn && gate === 'ClusterTrustBundle',
      pluginConfigurations: () => undefined,
      paramKinds: () => undefined,
      servedType: () => undefined,
      createNamespace: () => Promise.reject(new Error('not asked')),
      servedKind: () => undefined,
    },
  );
  return plugins.find((plugin) => plugin.name === 'ClusterTrustBundleAttest');
}

const bundle = (signerName?: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1beta1',
  kind: 'ClusterTrustBundle',
  metadata: { name: 'example.com:one:b', resourceVersion: '7', ...metadata },
  spec: { ...(signerName === undefined ? {} : { signerName }), trustBundle: '-----BEGIN CERTIFICATE-----' },
});

function write(
  operation: AdmissionOperation,
  user: string,
  object: KubeObject,
  oldObject?: KubeObject,
): AdmissionAttributes {
  return admissionAttributes({
    resource: { group: 'certificates.k8s.io', version: 'v1beta1', resource: 'clustertrustbundles' },
    kind: 'ClusterTrustBundle',
    operation,
    object,
    oldObject,
    userInfo: { name: user, groups: ['system:authenticated'] },
  });
}

const refusal = (signer: string) => ({
  status: {
    code: 403,
    reason: 'Forbidden',
    message: `clustertrustbundles.certificates.k8s.io "example.com:one:b" is forbidden: user not permitted to attest for signerName "${signer}"`,
    details: { name: 'example.com:one:b', group: 'certificates.k8s.io', kind: 'clustertrustbundles' },
  },
});

describe('ClusterTrustBundleAttest', () => {
  const plugin = defaultPlugin(true)!;

  it('is in the default chain', () => {
    expect(plugin).toBeDefined();
  });

  it('a bundle for a signer needs attest on it, by its name or its domain wildcard', async () => {
    await expect(plugin.validate!(write('CREATE', 'bob', bundle('example.com/one')))).rejects.toMatchObject(
      refusal('example.com/one'),
    );
    await expect(plugin.validate!(write('CREATE', 'alice', bundle('example.com/one')))).resolves.toBeUndefined();
    await expect(plugin.validate!(write('CREATE', 'alice', bundle('example.com/two')))).rejects.toMatchObject(
      refusal('example.com/two'),
    );
    await expect(plugin.validate!(write('CREATE', 'carol', bundle('example.com/two')))).resolves.toBeUndefined();
    await expect(plugin.validate!(write('CREATE', 'carol', bundle('example.org/two')))).rejects.toMatchObject(
      refusal('example.org/two'),
    );
  });

  it('a bundle without a signer needs nothing', async () => {
    await expect(plugin.validate!(write('CREATE', 'bob', bundle()))).resolves.toBeUndefined();
  });

  it('an update needs attest, unless it only changes what the garbage collector manages', async () => {
    const old = bundle('example.com/one');
    const owned = bundle('example.com/one', {
      finalizers: ['example.com/keep'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'x' }],
    });
    await expect(plugin.validate!(write('UPDATE', 'bob', owned, old))).resolves.toBeUndefined();
    const relabelled = bundle('example.com/one', { labels: { a: 'b' } });
    await expect(plugin.validate!(write('UPDATE', 'bob', relabelled, old))).rejects.toMatchObject(
      refusal('example.com/one'),
    );
    await expect(plugin.validate!(write('UPDATE', 'alice', relabelled, old))).resolves.toBeUndefined();
  });

  it('does nothing while the ClusterTrustBundle feature is off (its default)', async () => {
    const off = defaultPlugin(false)!;
    await expect(off.validate!(write('CREATE', 'bob', bundle('example.com/one')))).resolves.toBeUndefined();
  });
});
