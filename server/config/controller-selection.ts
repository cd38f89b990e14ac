/**
 * capstan runs its own copies of some of kube-controller-manager's controllers, so that it
 * works alone. Next to a real controller manager two copies would race each other (two garbage
 * collectors deleting the same dependents, the loser logging a 404 for every object), so
 * `--controllers` turns them off, named and selected as kube-controller-manager's own
 * `--controllers` names and selects them: `*` every one, `name` on, `-name` off; an empty list
 * runs none. The apiserver's own controllers (service IP repair, CRD status, legacy token
 * tracking, API Priority and Fairness) are not in this list: the reference server runs them.
 */
export const EMBEDDED_CONTROLLERS = [
  'namespace-controller',
  'resourcequota-controller',
  'garbage-collector-controller',
  'serviceaccount-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'validatingadmissionpolicy-status-controller',
  // capstan's one storage-protection controller does the work of both; it runs when both are on.
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'persistentvolume-binder-controller',
  'volumeattributesclass-protection-controller',
  // Only with the StorageVersionMigrator gate, and with the garbage collector, as the reference's.
  'storage-version-migrator-controller',
  // These two run only with --enable-bootstrap-token-auth, as the controller manager's are off unless asked for.
  'bootstrap-signer-controller',
  'token-cleaner-controller',
] as const;

export type EmbeddedController = (typeof EMBEDDED_CONTROLLERS)[number];

/** The controller manager's rule: named off wins, then named on, then `*`. */
export function controllerEnabled(selection: readonly string[], name: EmbeddedController): boolean {
  if (selection.includes(`-${name}`)) return false;
  return selection.includes(name) || selection.includes('*');
}

/** Throws for a name the list does not know, with the controller manager's words. */
export function checkControllerSelection(selection: readonly string[]): void {
  for (const entry of selection) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!(EMBEDDED_CONTROLLERS as readonly string[]).includes(name))
      throw new Error(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
}
