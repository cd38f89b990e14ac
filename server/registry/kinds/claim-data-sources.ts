/**
 * A PersistentVolumeClaim's two data source members, prepared as the reference's claim
 * strategy does before validation: a `dataSourceRef` to another namespace is dropped while
 * CrossNamespaceVolumeDataSource is off (unless the stored claim has a ref), a new claim's
 * `dataSource` that names neither a claim nor a volume snapshot is dropped (old clients sent
 * anything there), then whichever of `dataSource` and `dataSourceRef` is missing is copied from
 * the other (a cross-namespace ref stays alone).
 */
import type { KubeObject } from '../../../api/objects';
import type { WriteContext } from '../types';
import { isSet } from './gated-fields';

interface Reference {
  apiGroup?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

interface ClaimSpec {
  dataSource?: Reference;
  dataSourceRef?: Reference;
}

function namesClaimOrSnapshot(source: Reference): boolean {
  const apiGroup = source.apiGroup ?? '';
  return (
    (source.kind === 'PersistentVolumeClaim' && apiGroup === '') ||
    (source.kind === 'VolumeSnapshot' && apiGroup === 'snapshot.storage.k8s.io')
  );
}

/** The kind, name and group of a reference, the members both forms share. */
function sharedMembers(source: Reference): Reference {
  return {
    ...(source.apiGroup !== undefined ? { apiGroup: source.apiGroup } : {}),
    ...(source.kind !== undefined ? { kind: source.kind } : {}),
    ...(source.name !== undefined ? { name: source.name } : {}),
  };
}

export function prepareClaimDataSources(claim: KubeObject, old: KubeObject | undefined, context: WriteContext): void {
  const spec = claim.spec as ClaimSpec | undefined;
  if (spec === undefined) return;
  const oldSpec = old?.spec as ClaimSpec | undefined;
  if (
    !context.featureEnabled('CrossNamespaceVolumeDataSource') &&
    spec.dataSourceRef?.namespace &&
    !isSet(oldSpec?.dataSourceRef)
  )
    delete spec.dataSourceRef;
  const oldUsesSources = oldSpec?.dataSource !== undefined || oldSpec?.dataSourceRef !== undefined;
  if (
    !oldUsesSources &&
    spec.dataSourceRef === undefined &&
    spec.dataSource !== undefined &&
    !namesClaimOrSnapshot(spec.dataSource)
  )
    delete spec.dataSource;
  if (spec.dataSource !== undefined && spec.dataSourceRef === undefined)
    spec.dataSourceRef = sharedMembers(spec.dataSource);
  else if (spec.dataSourceRef !== undefined && spec.dataSource === undefined && !spec.dataSourceRef.namespace)
    spec.dataSource = sharedMembers(spec.dataSourceRef);
}
