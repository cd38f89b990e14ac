/**
 * The ResourceQuota plugin: a write that would take a namespace past a quota's `status.hard` is
 * refused with the reference's message, and one that fits is charged to each quota it touches
 * (`status.used` raised) before it is stored, as the reference does. Each charge is a
 * compare-and-swap update of the quota that checks the limit again against the quota it
 * replaces, so two concurrent creates against the last unit cannot both pass. A charge whose
 * write then fails is given back by the quota controller's next recount.
 *
 * Only quotas whose status the controller has filled take part (the reference decides by
 * `status.hard`), and scoped quotas only for the objects their scopes match (pods, and claims
 * by VolumeAttributesClass).
 */
import { refusedName } from '../refused-name';
import { ObjectError } from '../../../storage/errors';
import { forbidden } from '../../status/catalogue';
import {
  addAmounts,
  amountOf,
  claimQuotaChanged,
  formatAmount,
  missingPodCompute,
  usageOf,
  ZERO,
  type Amount,
  type Usage,
} from '../../quota/usage';
import { quotaCounts } from '../../quota/scopes';
import { listCached, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

import type { KubeObject } from '../../../api/objects';
type Fields = Record<string, unknown>;

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

/** The names of a quota's `status.hard` (or `status.used`) with their amounts. */
function amounts(value: unknown): Map<string, Amount> {
  const result = new Map<string, Amount>();
  for (const [name, text] of Object.entries(record(value))) {
    const amount = amountOf(text);
    if (amount !== undefined) result.set(name, amount);
  }
  return result;
}

/**
 * What the write adds to `quota`: the new object's usage, less the old one's where the old
 * object was already counted by this quota (an update that moves a pod into a quota's scopes,
 * say by giving it `activeDeadlineSeconds`, is charged in full there, as the reference does).
 */
function charge(attributes: AdmissionAttributes, quota: KubeObject): Usage {
  const { group, resource } = attributes.resource;
  const added = usageOf(group, resource, attributes.object!);
  const old = attributes.operation === 'UPDATE' ? attributes.oldObject : undefined;
  if (old === undefined || !quotaCounts(quota, group, resource, old)) return added;
  const before = usageOf(group, resource, old);
  const growth: Usage = new Map();
  for (const [name, amount] of added) {
    const previous = before.get(name);
    if (previous === undefined) growth.set(name, amount);
    else if (previous.value.compareTo(amount.value) < 0)
      growth.set(name, { value: amount.value.add(previous.value.negate()), binary: amount.binary });
  }
  return growth;
}

const isPodCreate = (attributes: AdmissionAttributes) =>
  attributes.resource.group === '' && attributes.resource.resource === 'pods' && attributes.operation === 'CREATE';

const list = (entries: [string, Amount][]) =>
  entries.map(([name, amount]) => `${name}=${formatAmount(amount)}`).join(',');

/**
 * The quota with the request charged, or the reference's refusal. Works on `quota` as read now
 * (the caller passes the current state on every compare-and-swap attempt).
 */
function charged(attributes: AdmissionAttributes, quota: KubeObject): KubeObject {
  const request = charge(attributes, quota);
  const name = String(quota.metadata.name);
  const status = record(quota.status);
  const hard = amounts(status.hard);
  const used = amounts(status.used);
  if (isPodCreate(attributes)) {
    const missing = missingPodCompute(attributes.object!, new Set(hard.keys()));
    if (missing !== undefined)
      throw forbidden(attributes.resource, refusedName(attributes), `failed quota: ${name}: must specify ${missing}`);
  }
  const exceeded: string[] = [];
  const newUsed = { ...record(status.used) };
  for (const [resource, amount] of [...request.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const limit = hard.get(resource);
    if (limit === undefined) continue;
    const total = addAmounts(used.get(resource) ?? ZERO, amount);
    if (total.value.compareTo(limit.value) > 0) exceeded.push(resource);
    newUsed[resource] = formatAmount(total);
  }
  // A status update reports what already happened (a volume changed class): charged, never refused.
  if (exceeded.length > 0 && attributes.subResource !== 'status') {
    const pick = (source: Map<string, Amount>) =>
      exceeded.map((resource): [string, Amount] => [resource, source.get(resource) ?? ZERO]);
    throw forbidden(
      attributes.resource,
      refusedName(attributes),
      `exceeded quota: ${name}, requested: ${list(pick(request))}, used: ${list(pick(used))}, limited: ${list(pick(hard))}`,
    );
  }
  quota.status = { ...status, used: newUsed };
  return quota;
}

/**
 * Writes quota looks at: creates and updates of the object itself, and status updates of a
 * claim that change what it holds or which VolumeAttributesClass scopes it falls in.
 */
function handles(attributes: AdmissionAttributes): boolean {
  if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return false;
  if (attributes.subResource === '') return true;
  const { group, resource } = attributes.resource;
  return (
    attributes.subResource === 'status' &&
    group === '' &&
    resource === 'persistentvolumeclaims' &&
    attributes.oldObject !== undefined &&
    claimQuotaChanged(attributes.oldObject, attributes.object!)
  );
}

export function resourceQuotaPlugin(storageOf: StorageOf): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    async validate(attributes) {
      if (attributes.namespace === '' || attributes.object === undefined || !handles(attributes)) return;
      const quotas = storageOf('', 'resourcequotas');
      const { group, resource } = attributes.resource;
      // A quota takes part when the write adds to what it tracks, or (for a new pod) the pod leaves compute it tracks unstated.
      const applicable = (quota: KubeObject) => {
        if (!quotaCounts(quota, group, resource, attributes.object!)) return false;
        const hard = record(record(quota.status).hard);
        return (
          [...charge(attributes, quota).keys()].some((name) => name in hard) ||
          (isPodCreate(attributes) && missingPodCompute(attributes.object!, new Set(Object.keys(hard))) !== undefined)
        );
      };
      const candidates = (await listCached(quotas, attributes.namespace)).filter(applicable);
      // Check every quota on the cached state first, so a refusal by one charges none.
      for (const quota of candidates) charged(attributes, structuredClone(quota));
      if (attributes.dryRun) return;
      for (const quota of candidates) {
        const key = { namespace: attributes.namespace, name: String(quota.metadata.name) };
        try {
          await quotas.update(
            key,
            (current) => (current !== undefined && applicable(current) ? charged(attributes, current) : current!),
            { preconditions: { uid: quota.metadata.uid } },
          );
        } catch (error) {
          // A quota deleted meanwhile no longer limits anything.
          if (!(error instanceof ObjectError && error.reason === 'NotFound')) throw error;
        }
      }
    },
  };
}
