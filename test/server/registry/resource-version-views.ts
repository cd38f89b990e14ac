/**
 * Objects of resource.k8s.io as the reference 1.34 serves each of them at v1, v1beta2 and
 * v1beta1 (fixtures/resource-versions.json, recorded by test/cluster/resource-versions.test.ts),
 * and the check both tests make of them: capstan's conversion of any one view to another
 * version answers that version's view, field for field and in the reference's field order.
 */
import type { GroupVersion } from '../../../api/identity';
import type { KubeObject } from '../../../api/objects';
import {
  convertDeviceClass,
  convertResourceClaim,
  convertResourceClaimTemplate,
  convertResourceSlice,
  RESOURCE_GROUP,
} from '../../../server/registry/conversion/resource-versions';

export const RESOURCE_VERSIONS = ['v1', 'v1beta2', 'v1beta1'] as const;
export type ResourceVersion = (typeof RESOURCE_VERSIONS)[number];

export interface RecordedViews {
  /** What the case shows (the version it was written through, and what it holds). */
  readonly name: string;
  readonly views: Readonly<Record<ResourceVersion, KubeObject>>;
}

export const FIXTURE_FILE = `${__dirname}/fixtures/resource-versions.json`;

const CONVERTERS: Readonly<Record<string, (object: KubeObject, to: GroupVersion) => KubeObject>> = {
  DeviceClass: convertDeviceClass,
  ResourceClaim: convertResourceClaim,
  ResourceClaimTemplate: convertResourceClaimTemplate,
  ResourceSlice: convertResourceSlice,
};

/** Every (from, to) pair of a case's views, converted by capstan, beside what the reference served. */
export function conversionsOf(
  recorded: RecordedViews,
): { from: string; to: string; actual: string; expected: string }[] {
  const pairs = [];
  for (const from of RESOURCE_VERSIONS) {
    for (const to of RESOURCE_VERSIONS) {
      const source = recorded.views[from];
      const convert = CONVERTERS[source.kind ?? ''];
      if (convert === undefined) throw new Error(`no conversion for kind ${String(source.kind)}`);
      const converted = convert(structuredClone(source), { group: RESOURCE_GROUP, version: to });
      // Compared as text, so that the field order counts too.
      pairs.push({
        from,
        to,
        actual: JSON.stringify(converted, null, 1),
        expected: JSON.stringify(recorded.views[to], null, 1),
      });
    }
  }
  return pairs;
}
