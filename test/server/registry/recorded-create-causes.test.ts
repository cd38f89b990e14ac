/**
 * Objects refused for several fields at once get the causes kube-apiserver 1.34.4 gave for the
 * same objects (fixtures/recorded-create-causes.json, recorded from it), in its order: a
 * Deployment's strategy (both counts zero, a percent over 100, an unknown type shown as the
 * internal struct) after its template and before its counts; a StatefulSet's policies, claim
 * templates (whose names become the template's volumes), counts and service name before its
 * selector and template; a claim's (or claim template's) selector before its modes, a size above
 * zero, class names that are DNS subdomains; a DaemonSet's update strategy (one count non-zero,
 * none over 100%) between its minReadySeconds and revisionHistoryLimit; a container's mounts naming volumes the pod has
 * (and that passed their own checks), at unique paths, with sub-paths below the volume; a
 * ResourceClaimTemplate's metadata, labels and annotations only, the rest refused in Go's order.
 * fixtures/recorded-pod-spec-causes.json holds the pod spec's own cases (for pods and every
 * template): a container's fields in the reference's order, names unique per kind of container;
 * one source per volume and each source's fields; mount propagation, recursive read-only mounts
 * and block devices of claims, apart from the mounts; an ephemeral volume's claim template (labels
 * and annotations its only metadata, the rest refused in Go's order, and a claim's spec rules);
 * downward API files (reported without their index) and projections (one kind per source, file
 * paths unique across sources, a token only with a service account in a Pod), the gated kinds of
 * projection under the gates the reference ran with, which a case names.
 * fixtures/recorded-apparmor-annotation-causes.json holds the container AppArmor annotations of
 * pods and templates: each names a container (init ones too) and holds a profile of the beta
 * format, checked after the other pod annotations; an empty one is a control, accepted either way.
 * fixtures/recorded-pod-annotation-causes.json holds the other pod annotations the reference
 * checks, in its order (mirror, tolerations, deletion cost, seccomp, AppArmor): the alpha
 * tolerations annotation decoded as Go decodes it into the internal type (its errors naming Go's
 * members and types) and held to the field's rules; the deprecated seccomp annotations' format;
 * and, on a pod's create and in every template, the seccomp and AppArmor annotations against the
 * profile fields beside them (a Windows pod's AppArmor excepted), after the rest of the spec.
 * fixtures/recorded-pod-os-causes.json holds the spec's declared OS: a known name, and the fields
 * it rules out (Windows options on Linux; the Linux security settings, pod-level and in every
 * container, on Windows; an empty list of supplemental groups counts, empty sysctls do not).
 * fixtures/recorded-pod-create-rules.json holds what only a Pod's create forbids, in order:
 * ephemeral containers, a node with scheduling gates left, then the profile annotation checks.
 * fixtures/recorded-pod-host-sysctls.json holds sysctls of a namespace the pod shares with its
 * node (network ones with hostNetwork, IPC ones with hostIPC), refused after each name's own
 * checks, bad names too; slash forms read as their dotted ones; among the spec's other rules.
 * fixtures/recorded-pod-os-dependent-rules.json holds the rules that read the declared OS inside
 * them: a Windows pod's pod-level resources refused whole, right after its containers; a
 * container's stop signal (ContainerStopSignals on) only with a declared OS, one of that OS's
 * signals, judged after the lifecycle hooks' handlers and before the probes.
 * fixtures/recorded-pod-user-namespace.json holds a pod with its own users (hostUsers false): no
 * host namespace (paths `spec.HostPID`, `spec.HostIPC` as the reference writes them) and no
 * volume devices, after the windows hostProcess check; an Unmasked /proc only for such a pod.
 * fixtures/recorded-pod-security-context.json holds the security contexts' own rules in order:
 * user and group ids non-negative 32-bit numbers (pod and container), no process namespace
 * shared with the host and within the pod at once, the pod's policies among its known values.
 * fixtures/recorded-pod-lifecycle-sleep.json holds a lifecycle hook's pause: never negative, no
 * longer than the pod's grace period, and not judged where another handler came first.
 * fixtures/recorded-pod-host-network-ports.json holds a container's host port on the host's
 * network: its container port (a template's may be unset), judged before restartPolicy.
 * fixtures/job-indexed-limits.json holds an Indexed Job's counts: completions required, bounds on
 * parallelism and maxFailedIndexes (tighter above 100,000 completions with per-index backoff),
 * and a name that still makes a DNS label with the last index appended.
 * fixtures/job-pod-failure-policy.json holds a Job's pod failure policy: each rule's action
 * (FailIndex only with backoffLimitPerIndex), exactly one of exit codes and pod conditions, exit
 * codes sorted and unique with a known operator and container, the counts of rules, codes and
 * patterns; a CronJob's job template's patterns default their status as a Job's do.
 * fixtures/job-success-policy.json holds a Job's success policy, always with completions (the
 * reference panics without them): rules present and at most 20, each with indexes that parse
 * within completions and a count within completions and within the indexes it names.
 * fixtures/recorded-pod-windows-security-options.json holds the Windows options of the pod and of
 * each container, judged whatever the declared OS (between the seccomp and AppArmor profiles):
 * the GMSA credential spec's name and size (in bytes), the user name's domain (NetBIOS or DNS)
 * and user parts, the values printed as JSON.
 * fixtures/recorded-pod-privilege-escalation.json holds a container kept from gaining privileges
 * that is privileged or given CAP_SYS_ADMIN (once per entry; SYS_ADMIN is not looked for),
 * refused at its whole security context printed as the reference's internal struct, after its
 * seccomp profile and before its Windows options.
 * fixtures/recorded-pod-level-resources-causes.json holds pod-level resources against the
 * containers' (after the pod level's defaults): no claims, even none; requests no lower than the
 * containers' at once (sidecars counted), huge page limits likewise, no container limit above the
 * pod's, at the reference's own paths.
 * fixtures/recorded-pod-resource-claims.json holds a pod's resource claims, for pods and every
 * template, judged between the volumes and the containers: each named (a DNS label, unique) and
 * naming exactly one claim or claim template (DNS subdomains), refused at the whole claim printed
 * as the internal struct; a static pod's refused once per claim at `[]`, a template's never. Then
 * what containers (init and ephemeral ones too) and the pod level ask of them: a pod claim named,
 * whole or by request (a DNS label), never twice nor both, the pod's claim names listed sorted.
 * fixtures/recorded-resource-amounts.json holds the amounts of container, pod-level and template
 * resources: never negative, whole for extended resources, huge pages in whole pages and beside
 * cpu or memory, requests within their limits (equal to them, which must be set, for extended
 * resources and huge pages); limits first, then requests, each name's rules together.
 * fixtures/recorded-quota-amounts.json holds a quota's hard amounts (names the quota system
 * tracks, never negative, whole for counts and extended resources), its scopes (known, fit for
 * every standard resource it holds, none in conflict) and its scope selector's like rules.
 * fixtures/recorded-limit-range-amounts.json holds a LimitRange's amounts per resource, after its
 * defaults: min ≤ default request ≤ default ≤ max, a ratio of at least 1 that max/min reaches,
 * defaults equal to requests for extended resources and huge pages; no defaults for pods and
 * storage bounds for claims.
 * fixtures/recorded-overhead-amounts.json holds a RuntimeClass's overhead, held to a container's
 * limits at `overhead.limits`, and a pod's own overhead at `spec.overhead.limits`.
 * fixtures/recorded-claim-storage-amounts.json holds a claim's requested storage: required, above
 * zero, printed in its canonical form; its limits are not judged.
 * fixtures/recorded-resize-policies.json holds a container's resize policies (a sidecar's and a
 * plain init container's too, in pods and templates), after its resources and before its security
 * context: a resource and a restart policy each stated and known, no resource twice, no restart
 * in a pod that never restarts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  /** The feature gates the reference ran with, where they differ from its defaults. */
  readonly gates?: Readonly<Record<string, boolean>>;
  readonly object: KubeObject;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
  /** The reference ranges over a Go map here, so its order changed from one answer to the next. */
  readonly unordered?: boolean;
}

const CASES: readonly Case[] = [
  'recorded-create-causes.json',
  'recorded-pod-spec-causes.json',
  'recorded-apparmor-annotation-causes.json',
  'recorded-pod-annotation-causes.json',
  'recorded-pod-os-causes.json',
  'recorded-pod-create-rules.json',
  'recorded-pod-host-sysctls.json',
  'recorded-pod-os-dependent-rules.json',
  'recorded-pod-user-namespace.json',
  'recorded-pod-security-context.json',
  'recorded-pod-lifecycle-sleep.json',
  'recorded-pod-host-network-ports.json',
  'job-indexed-limits.json',
  'job-pod-failure-policy.json',
  'job-success-policy.json',
  'recorded-pod-windows-security-options.json',
  'recorded-pod-privilege-escalation.json',
  'recorded-pod-level-resources-causes.json',
  'recorded-pod-resource-claims.json',
  'recorded-resource-amounts.json',
  'recorded-quota-amounts.json',
  'recorded-limit-range-amounts.json',
  'recorded-overhead-amounts.json',
  'recorded-claim-storage-amounts.json',
  'recorded-resize-policies.json',
].flatMap((fixture) => JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Case[]);

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const type = typeOf(c.group, c.resource);
  const namespace = type.namespaced ? { namespace: 'default' } : {};
  const object = { ...c.object, metadata: { ...c.object.metadata, ...namespace } } as KubeObject;
  const { errors } = created(type, object, c.gates ?? {});
  if (c.unordered) expect([...errors].sort()).toEqual([...c.causes].sort());
  else expect(errors).toEqual(c.causes);
});
