/**
 * A built-in kind served in several versions without a `convert` changes only its apiVersion
 * between them. That is right only while the versions' schemas hold
 * the same fields, of the same types, under the same protobuf tags: checked here on the
 * generated definitions, so a version whose fields differ cannot be added as a rename.
 */
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { schemaData, type Schema } from '../../../server/schema/definitions';

/** `io.k8s.api.storage.v1beta1.X` and `io.k8s.api.storage.v1.X` name the same shape. */
function versionless(name: string): string {
  return name.replace(/\.v\d+(?:(?:alpha|beta)\d+)?\./, '.*.');
}

/**
 * The fields of a definition as JSON and protobuf read them, references followed: what a
 * conversion would have to carry over. Descriptions, enums and defaults are left out (the
 * kind's defaulting and validation own them).
 */
function shape(name: string, seen: ReadonlySet<string> = new Set()): unknown {
  const definitions = schemaData().definitions;
  const of = (schema: Schema | undefined, inside: ReadonlySet<string>): unknown => {
    if (schema === undefined) return undefined;
    if (schema.$ref !== undefined) {
      const target = schema.$ref.replace('#/definitions/', '');
      return inside.has(target) ? versionless(target) : shape(target, inside);
    }
    const protobuf = schema['x-capstan-protobuf'];
    return {
      type: schema.type,
      format: schema.format,
      items: of(schema.items, inside),
      additionalProperties: of(schema.additionalProperties, inside),
      properties:
        schema.properties &&
        Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, of(value, inside)])),
      protobuf: protobuf && { ...protobuf, type: protobuf.type && versionless(protobuf.type) },
      inline: schema['x-capstan-protobuf-inline']?.map((part) => ({ ...part, type: versionless(part.type) })),
    };
  };
  return of(definitions[name], new Set([...seen, name]));
}

const renamedVersions = BUILTIN_TYPES.filter((type) => type.convert === undefined && type.versions.length > 1);

describe('versions served as a rename of each other', () => {
  it('include the alpha and beta versions added beside served ones', () => {
    expect(renamedVersions.map((type) => `${type.resource}.${type.group}`)).toEqual(
      expect.arrayContaining([
        'volumeattributesclasses.storage.k8s.io',
        'ipaddresses.networking.k8s.io',
        'servicecidrs.networking.k8s.io',
        'leasecandidates.coordination.k8s.io',
        'clustertrustbundles.certificates.k8s.io',
        'mutatingadmissionpolicies.admissionregistration.k8s.io',
      ]),
    );
  });

  it.each(renamedVersions.map((type) => [`${type.resource}.${type.group}`, type] as const))(
    '%s: every version has the fields of the first',
    (_name, type) => {
      const [first, ...others] = type.versions;
      for (const other of others)
        expect([other.version, shape(other.definition)]).toEqual([other.version, shape(first.definition)]);
    },
  );

  it('tells a version with other fields apart', () => {
    expect(shape('io.k8s.api.resource.v1beta1.ResourceClaim')).not.toEqual(
      shape('io.k8s.api.resource.v1.ResourceClaim'),
    );
  });
});
