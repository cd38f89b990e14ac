/**
 * Serving custom resources on every replica: an informer on CustomResourceDefinitions keeps the
 * registry's custom types in step with the established CRDs. An established CRD's type is
 * added (or replaced when its spec, its establishment or its termination changed); a CRD that
 * is gone takes its type with it, and with the type its routes, discovery, OpenAPI and watch
 * cache. Every replica runs this, leader or not, since every replica serves every type; the
 * status the types follow is written by the leader's CRD controller (crd-controller.ts).
 */
import type { ObjectStorage } from '../../storage/objects/types';
import type { ServiceResolver } from '../proxy/service-endpoint';
import { startInformer } from '../client/informer';
import type { MutableResourceRegistry } from '../registry/registry';
import { asCRD, isConditionTrue, type CustomResourceDefinition } from './crd-types';
import { customResourceType } from './custom-resource-type';

import type { KubeObject } from '../../api/objects';
export interface CRDServing {
  /** Resolves once the CRDs stored at start are served. */
  readonly synced: Promise<void>;
  stop(): void;
}

/** What a served type is made from: a change here means the type must be made again. */
function servedFacts(crd: CustomResourceDefinition): string {
  return JSON.stringify([
    crd.metadata.uid,
    crd.metadata.generation,
    crd.spec,
    crd.metadata.deletionTimestamp !== undefined,
  ]);
}

export function startCRDServing(options: {
  readonly crds: ObjectStorage;
  readonly registry: MutableResourceRegistry;
  /** Where conversion webhooks given by Service are reached. */
  readonly services?: ServiceResolver;
  /** Told when a CRD cannot be served (its kind taken by another resource); the CRD stays unserved. */
  readonly onError?: (crd: CustomResourceDefinition, error: Error) => void;
}): CRDServing {
  const { registry } = options;
  /** CRD name → what its served type was made from. */
  const served = new Map<string, { facts: string; group: string; resource: string }>();

  const unserve = (name: string): void => {
    const current = served.get(name);
    if (current === undefined) return;
    served.delete(name);
    registry.remove({ group: current.group, resource: current.resource });
  };

  const follow = (object: KubeObject): void => {
    const crd = asCRD(object);
    const name = String(crd.metadata.name);
    if (!isConditionTrue(crd, 'Established')) {
      unserve(name);
      return;
    }
    const facts = servedFacts(crd);
    const current = served.get(name);
    if (current?.facts === facts) return;
    // A CRD's plural cannot change, so the resource stays the same; the replace is one step.
    try {
      registry.add(customResourceType(crd, options.services));
      served.set(name, { facts, group: crd.spec.group, resource: crd.spec.names.plural });
    } catch (error) {
      unserve(name);
      options.onError?.(crd, error as Error);
    }
  };

  const informer = startInformer(options.crds, {
    onUpsert: follow,
    onDelete: (object) => unserve(String(object.metadata.name)),
  });
  return { synced: informer.synced, stop: () => informer.stop() };
}
