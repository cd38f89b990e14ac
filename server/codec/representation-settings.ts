/**
 * Which representations the server speaks beyond JSON, YAML and protobuf, from its feature
 * gates: the codecs that read bodies and the writers that answer both follow them.
 */

/** Server-wide switches of the representations (feature gates). */
export interface RepresentationSettings {
  /** `CBORServingAndStorage` (alpha, off by default). */
  readonly cbor: boolean;
  /** `APIResponseCompression` (on by default). */
  readonly compression: boolean;
}

export const DEFAULT_REPRESENTATION_SETTINGS: RepresentationSettings = { cbor: false, compression: true };

/** The settings from `--feature-gates`, each gate at the reference's default when not given. */
export function representationSettingsFrom(featureGates: Readonly<Record<string, boolean>>): RepresentationSettings {
  return {
    cbor: featureGates.CBORServingAndStorage ?? DEFAULT_REPRESENTATION_SETTINGS.cbor,
    compression: featureGates.APIResponseCompression ?? DEFAULT_REPRESENTATION_SETTINGS.compression,
  };
}
