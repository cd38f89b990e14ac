/**
 * resource.k8s.io claims and claim templates under their feature gates. Each expectation is
 * what a 1.34.4 kube-apiserver stored for the same object: started with the gates on, it kept
 * every gated field; restarted on the same etcd with them off, it dropped them from new
 * objects and kept them through updates of the objects that had them.
 */
import type { KubeObject } from '../../../../api/objects';
import { created, typeOf, updated } from './write-path';

const claims = typeOf('resource.k8s.io', 'resourceclaims');
const templates = typeOf('resource.k8s.io', 'resourceclaimtemplates');

const ADMIN_OFF = { DRAAdminAccess: false };

function claimSpec(exactly: Record<string, unknown>) {
  return { devices: { requests: [{ name: 'a', exactly: { deviceClassName: 'c', ...exactly } }] } };
}

function claim(exactly: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: 'claim', namespace: 'ns' },
    spec: claimSpec(exactly),
  };
}

function template(exactly: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: 'template', namespace: 'ns' },
    spec: { spec: claimSpec(exactly) },
  };
}

const DEFAULTED_EXACTLY = { deviceClassName: 'c', allocationMode: 'ExactCount', count: 1 };

describe('DRAAdminAccess', () => {
  test('off: a new claim loses adminAccess', () => {
    const { object, errors } = created(claims, claim({ adminAccess: true }), ADMIN_OFF);
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({ devices: { requests: [{ name: 'a', exactly: DEFAULTED_EXACTLY }] } });
  });

  test('on (its 1.34 default): a new claim keeps adminAccess', () => {
    const { object } = created(claims, claim({ adminAccess: true }), {});
    expect(object.spec).toEqual({
      devices: { requests: [{ name: 'a', exactly: { ...DEFAULTED_EXACTLY, adminAccess: true } }] },
    });
  });

  test('off: an update keeps adminAccess of a claim that has it', () => {
    const stored = created(claims, claim({ adminAccess: true }), {}).object;
    const { object, errors } = updated(
      claims,
      stored,
      (next) => (next.metadata.labels = { touched: 'yes' }),
      ADMIN_OFF,
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual(stored.spec);
  });

  test('off: an update may not bring adminAccess to a claim without it', () => {
    const stored = created(claims, claim({}), ADMIN_OFF).object;
    const { object } = updated(
      claims,
      stored,
      (next) => ((next.spec as any).devices.requests[0].exactly.adminAccess = true),
      ADMIN_OFF,
    );
    expect(object.spec).toEqual(stored.spec);
  });

  test("off: a status write loses the allocation's adminAccess unless the claim uses it", () => {
    const allocate = (next: KubeObject) =>
      (next.status = {
        allocation: {
          devices: { results: [{ request: 'a', driver: 'd.example.com', pool: 'p', device: 'd0', adminAccess: true }] },
        },
      });
    const plain = created(claims, claim({}), ADMIN_OFF).object;
    expect(updated(claims, plain, allocate, ADMIN_OFF, 'status').object.status).toEqual({
      allocation: { devices: { results: [{ request: 'a', driver: 'd.example.com', pool: 'p', device: 'd0' }] } },
    });
    const admin = created(claims, claim({ adminAccess: true }), {}).object;
    expect(updated(claims, admin, allocate, ADMIN_OFF, 'status').object.status).toEqual({
      allocation: {
        devices: { results: [{ request: 'a', driver: 'd.example.com', pool: 'p', device: 'd0', adminAccess: true }] },
      },
    });
  });

  test('off: a new template loses adminAccess; an update of one that has it keeps it', () => {
    expect(created(templates, template({ adminAccess: true }), ADMIN_OFF).object.spec).toEqual({
      metadata: {},
      spec: { devices: { requests: [{ name: 'a', exactly: DEFAULTED_EXACTLY }] } },
    });
    const stored = created(templates, template({ adminAccess: true }), {}).object;
    const { object } = updated(templates, stored, (next) => (next.metadata.labels = { touched: 'yes' }), ADMIN_OFF);
    expect(object.spec).toEqual(stored.spec);
  });
});
