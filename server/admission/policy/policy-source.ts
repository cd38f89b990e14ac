/**
 * What the validating and the mutating policy plugins share before evaluating anything, as the
 * reference's generic policy source and dispatcher do it for both: bindings grouped by the
 * policy they name, each policy compiled once per resourceVersion (and forgotten once no binding
 * reaches it), and the version a policy matches a request in.
 */
import type { KubeObject } from '../../../api/objects';
import type { AdmissionAttributes as PolicyAttributes, MatchResources } from '../../../api/admissionregistration';
import type { ObjectStorage } from '../../../storage/objects/types';
import { getCached } from '../lookup';
import type { GroupVersion } from '../../../api/identity';
import type { AdmissionAttributes } from '../types';
import { matchingAttributes } from './attributes';
import { candidateVersions, type ServedTypeLookup } from '../webhook/versions';

/** The bindings of each policy they name, in the order they were listed. */
export function bindingsByPolicy<B>(bindings: readonly KubeObject[]): Map<string, B[]> {
  const bound = new Map<string, B[]>();
  for (const binding of bindings) {
    const policyName = (binding.spec as { policyName?: string } | undefined)?.policyName;
    if (policyName) bound.set(policyName, [...(bound.get(policyName) ?? []), binding as unknown as B]);
  }
  return bound;
}

/** Policies' compiled forms, kept while each policy is unchanged. */
export class CompiledPolicies<C> {
  private readonly entries = new Map<string, { readonly resourceVersion: string | undefined; readonly compiled: C }>();

  constructor(private readonly compile: (policy: KubeObject) => C) {}

  get size(): number {
    return this.entries.size;
  }

  compiledFor(policy: KubeObject): C {
    const name = String(policy.metadata.name);
    const cached = this.entries.get(name);
    if (cached !== undefined && cached.resourceVersion === policy.metadata.resourceVersion) return cached.compiled;
    const compiled = this.compile(policy);
    this.entries.set(name, { resourceVersion: policy.metadata.resourceVersion, compiled });
    return compiled;
  }

  /** Drops the compiled policies no binding reached in this request: deleted, or unbound. */
  forgetAllBut(inUse: ReadonlySet<string>): void {
    for (const name of this.entries.keys()) if (!inUse.has(name)) this.entries.delete(name);
  }
}

/**
 * The group-version a policy matches the request in (its matchPolicy: the request's own, then
 * under Equivalent the other versions the resource is served in), or undefined.
 */
function matchedVersion(
  attributes: AdmissionAttributes,
  matchPolicy: 'Exact' | 'Equivalent' | undefined,
  servedType: ServedTypeLookup,
  matches: (request: PolicyAttributes) => boolean,
): GroupVersion | undefined {
  return candidateVersions(attributes, matchPolicy, servedType).find((version) =>
    matches(
      matchingAttributes({
        ...attributes,
        resource: { ...version, resource: attributes.resource.resource },
        kind: { ...version, kind: attributes.kind.kind },
      }),
    ),
  );
}

/** What the plugins need of a compiled policy to find the requests it matches. */
export interface MatchablePolicy {
  readonly policy: { readonly spec: { readonly matchConstraints?: MatchResources } };
  matchesPolicy(request: PolicyAttributes, namespaceObject: Readonly<Record<string, unknown>> | null): boolean;
}

/** A bound policy that matches the request, in the version it matched it in. */
export interface PolicyMatch<C, B> {
  readonly name: string;
  readonly compiled: C;
  readonly version: GroupVersion;
  readonly bindings: readonly B[];
}

/**
 * The bound policies matching the request, in the order of `names` (default: as bound), each
 * compiled through `compiled`; the ones no binding reaches any more are forgotten once all are seen.
 */
export async function* matchingPolicies<C extends MatchablePolicy, B>(options: {
  readonly bound: ReadonlyMap<string, readonly B[]>;
  readonly names?: readonly string[];
  readonly policies: ObjectStorage;
  readonly compiled: CompiledPolicies<C>;
  readonly attributes: AdmissionAttributes;
  readonly namespaceObject: Readonly<Record<string, unknown>> | null;
  readonly servedType: ServedTypeLookup;
}): AsyncGenerator<PolicyMatch<C, B>> {
  const inUse = new Set<string>();
  for (const name of options.names ?? options.bound.keys()) {
    const policy = await getCached(options.policies, name);
    if (policy === undefined) continue;
    inUse.add(name);
    const compiled = options.compiled.compiledFor(policy);
    const version = matchedVersion(
      options.attributes,
      compiled.policy.spec.matchConstraints?.matchPolicy,
      options.servedType,
      (request) => compiled.matchesPolicy(request, options.namespaceObject),
    );
    if (version !== undefined) yield { name, compiled, version, bindings: options.bound.get(name) ?? [] };
  }
  options.compiled.forgetAllBut(inUse);
}
