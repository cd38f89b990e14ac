/**
 * The pod-level resources a Pod (not a template) is given by default while PodLevelResources is
 * on, after its containers' own defaults, as the reference's defaultHugePagePodLimits and
 * defaultPodRequests give them, and only to a spec that already has some: huge page limits from
 * the containers' (not for a size the pod requests), then requests of CPU and memory from the
 * containers', and of any other supported resource with a pod-level limit, from that limit.
 */
import { isObject } from '../../json/value';
import { containerTotals } from '../kinds/container-resource-totals';
import type { Json } from './fill';
import { isHugePages } from '../../validation/resource-names';
import { isOvercommitAllowed } from '../../validation/resource-requirements';

const isSupportedAtPodLevel = (name: string) => name === 'cpu' || name === 'memory' || isHugePages(name);

const listAt = (resources: Json, list: 'requests' | 'limits') =>
  isObject(resources[list]) ? (resources[list] as Json) : undefined;

function defaultHugePageLimits(spec: Json, resources: Json): void {
  const requests = listAt(resources, 'requests');
  const limits = listAt(resources, 'limits') ?? {};
  if (Object.keys(limits).length === 0 && Object.keys(requests ?? {}).length === 0) return;
  for (const [name, amount] of containerTotals(spec, 'limits'))
    if (isHugePages(name) && requests?.[name] === undefined && limits[name] === undefined) limits[name] = amount.text;
  if (Object.keys(limits).length > 0) resources.limits = limits;
}

function defaultRequests(spec: Json, resources: Json): void {
  const limits = listAt(resources, 'limits');
  if (limits === undefined || Object.keys(limits).length === 0) return;
  const requests = listAt(resources, 'requests') ?? {};
  for (const [name, amount] of containerTotals(spec, 'requests'))
    if (requests[name] === undefined && isSupportedAtPodLevel(name) && isOvercommitAllowed(name))
      requests[name] = amount.text;
  for (const [name, limit] of Object.entries(limits))
    if (requests[name] === undefined && isSupportedAtPodLevel(name)) requests[name] = limit;
  if (Object.keys(requests).length > 0) resources.requests = requests;
}

/** A Pod's spec, its containers' requests already defaulted. */
export function defaultPodLevelResources(spec: Json): void {
  const resources = spec.resources;
  if (!isObject(resources)) return;
  defaultHugePageLimits(spec, resources);
  defaultRequests(spec, resources);
}
