/**
 * What the cluster allows pods, beyond their own validity: `--allow-privileged`. The reference
 * keeps this as one process-wide capability (pkg/capabilities), set once at start before any
 * request is served, and its pod validation reads it wherever a pod spec is validated (pods,
 * pod templates in workloads, ephemeral containers). capstan does the same: one server process
 * has one policy, and threading it through every kind's validation would change every strategy's
 * signature for one boolean.
 */
export interface ClusterPolicy {
  /** Privileged containers and Windows hostProcess containers may be asked for. */
  readonly allowPrivileged: boolean;
}

/** The reference's default: privileged containers are refused. */
let policy: ClusterPolicy = { allowPrivileged: false };

/** Called once at start, from the options (server/control-plane.ts). */
export function setClusterPolicy(next: ClusterPolicy): void {
  policy = next;
}

export function clusterPolicy(): ClusterPolicy {
  return policy;
}
