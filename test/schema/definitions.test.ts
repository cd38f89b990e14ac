import {
  definitionFor,
  definitionForKind,
  protobufMessageFor,
  resolveRef,
  schemaData,
  type Schema,
} from '../../server/schema/definitions';

function property(definition: string, name: string): Schema {
  const found = definitionFor(definition)?.properties?.[name];
  if (found === undefined) throw new Error(`${definition}.${name} missing`);
  return found;
}

describe('generated schema definitions', () => {
  test('records the reference module versions it was generated from', () => {
    const { metadata } = schemaData();
    expect(metadata.release).toBe('1.34');
    for (const module of [
      'k8s.io/api',
      'k8s.io/apimachinery',
      'k8s.io/apiextensions-apiserver',
      'k8s.io/kube-aggregator',
    ]) {
      expect(metadata.modules[module]).toMatch(/^v0\.34\.\d+$/);
    }
  });

  test('PodSpec.containers merges by name and is a map list keyed by name', () => {
    const containers = property('io.k8s.api.core.v1.PodSpec', 'containers');
    expect(containers['x-kubernetes-patch-strategy']).toBe('merge');
    expect(containers['x-kubernetes-patch-merge-key']).toBe('name');
    expect(containers['x-kubernetes-list-type']).toBe('map');
    expect(containers['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(containers.items?.$ref).toBe('#/definitions/io.k8s.api.core.v1.Container');
  });

  test('Container.ports merges by containerPort, list-map keys containerPort and protocol', () => {
    const ports = property('io.k8s.api.core.v1.Container', 'ports');
    expect(ports['x-kubernetes-patch-merge-key']).toBe('containerPort');
    expect(ports['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
  });

  test('kinds carry their group, version and kind', () => {
    expect(definitionFor('io.k8s.api.apps.v1.Deployment')?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    expect(definitionForKind({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' })?.name).toBe(
      'io.k8s.api.rbac.v1.ClusterRole',
    );
    expect(definitionForKind({ group: '', version: 'v1', kind: 'Pod' })?.name).toBe('io.k8s.api.core.v1.Pod');
    expect(
      definitionForKind({ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' })?.name,
    ).toBe('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
    expect(definitionForKind({ group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService' })?.name).toBe(
      'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService',
    );
    expect(definitionForKind({ group: '', version: 'v1', kind: 'Status' })?.name).toBe(
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    );
    // DeleteOptions is registered in every group version.
    expect(definitionForKind({ group: 'apps', version: 'v1', kind: 'DeleteOptions' })?.name).toBe(
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    );
    expect(definitionForKind({ group: 'apps', version: 'v1', kind: 'Status' })).toBeUndefined();
    expect(definitionForKind({ group: 'apps', version: 'v1', kind: 'NoSuchKind' })).toBeUndefined();
  });

  test('ObjectMeta protobuf field numbers', () => {
    expect(property('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'name')['x-capstan-protobuf']).toMatchObject({
      tag: 1,
      wire: 'bytes',
      type: 'string',
    });
    expect(property('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'namespace')['x-capstan-protobuf']?.tag).toBe(3);
    expect(property('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'labels')['x-capstan-protobuf']).toEqual({
      tag: 11,
      wire: 'bytes',
      map: { key: { type: 'string', wire: 'bytes' }, value: { type: 'string', wire: 'bytes' } },
      omitempty: true,
    });
    // `json:"containers"`: no omitempty, so an absent list prints as null, as Go prints it.
    expect(property('io.k8s.api.core.v1.PodSpec', 'containers')['x-capstan-protobuf']?.omitempty).toBeUndefined();
    expect(property('io.k8s.api.core.v1.Pod', 'spec')['x-capstan-protobuf']).toMatchObject({
      tag: 2,
      type: 'io.k8s.api.core.v1.PodSpec',
    });
    expect(property('io.k8s.api.apps.v1.DeploymentSpec', 'replicas')['x-capstan-protobuf']).toMatchObject({
      tag: 1,
      wire: 'varint',
      type: 'int32',
    });
  });

  test('protobuf special cases: inlined embedded structs, wrappers, opaque messages', () => {
    expect(definitionFor('io.k8s.api.core.v1.Volume')?.['x-capstan-protobuf-inline']).toEqual([
      { tag: 2, wire: 'bytes', type: 'io.k8s.api.core.v1.VolumeSource' },
    ]);
    expect(property('io.k8s.api.core.v1.Volume', 'hostPath')['x-capstan-protobuf']).toBeUndefined();
    expect(property('io.k8s.api.apps.v1.Deployment', 'kind')['x-capstan-protobuf']).toBeUndefined();
    expect(protobufMessageFor('io.k8s.apimachinery.pkg.apis.meta.v1.Verbs')?.fields).toEqual([
      { name: 'items', tag: 1, wire: 'bytes', type: 'string', repeated: true },
    ]);
    expect(protobufMessageFor('io.k8s.apimachinery.pkg.api.resource.Quantity')?.fields).toEqual([
      { name: 'string', tag: 1, wire: 'bytes', type: 'string' },
    ]);
    expect(
      protobufMessageFor('io.k8s.apimachinery.pkg.apis.meta.v1.Time')?.fields.map((f) => [f.name, f.tag, f.type]),
    ).toEqual([
      ['seconds', 1, 'int64'],
      ['nanos', 2, 'int32'],
    ]);
    expect(protobufMessageFor('io.k8s.apimachinery.pkg.util.intstr.IntOrString')?.fields.map((f) => f.name)).toEqual([
      'type',
      'intVal',
      'strVal',
    ]);
    expect(protobufMessageFor('io.k8s.apimachinery.pkg.runtime.Unknown')?.fields.map((f) => [f.name, f.tag])).toEqual([
      ['typeMeta', 1],
      ['raw', 2],
      ['contentEncoding', 3],
      ['contentType', 4],
    ]);
    expect(property('io.k8s.api.core.v1.ResourceRequirements', 'limits')['x-capstan-protobuf']?.map?.value.type).toBe(
      'io.k8s.apimachinery.pkg.api.resource.Quantity',
    );
  });

  test('enums list their values', () => {
    expect(property('io.k8s.api.core.v1.ServiceSpec', 'type').enum).toEqual([
      'ClusterIP',
      'ExternalName',
      'LoadBalancer',
      'NodePort',
    ]);
  });

  test('special OpenAPI forms of custom JSON types', () => {
    expect(definitionFor('io.k8s.apimachinery.pkg.util.intstr.IntOrString')).toEqual({
      type: 'string',
      format: 'int-or-string',
      'x-capstan-openapi-v3-one-of': ['integer', 'string'],
    });
    expect(definitionFor('io.k8s.apimachinery.pkg.api.resource.Quantity')).toMatchObject({ type: 'string' });
    expect(definitionFor('io.k8s.apimachinery.pkg.apis.meta.v1.Time')).toEqual({ type: 'string', format: 'date-time' });
    expect(definitionFor('io.k8s.apimachinery.pkg.runtime.RawExtension')).toEqual({ type: 'object' });
    expect(definitionFor('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON')).toEqual({});
  });

  test('required fields and defaults follow openapi-gen', () => {
    expect(definitionFor('io.k8s.api.core.v1.Container')?.required).toEqual(['name']);
    expect(property('io.k8s.api.apps.v1.Deployment', 'spec').default).toEqual({});
    expect(property('io.k8s.api.core.v1.ContainerPort', 'protocol').default).toBe('TCP');
  });

  test('resolveRef follows $ref to the named definition', () => {
    const spec = resolveRef(property('io.k8s.api.core.v1.Pod', 'spec'));
    expect(spec.properties?.containers).toBeDefined();
    const plain = { type: 'string' as const };
    expect(resolveRef(plain)).toBe(plain);
  });

  test('every $ref names an existing definition and no schema has a description', () => {
    const { definitions } = schemaData();
    const problems: string[] = [];
    const visit = (schema: Schema, where: string): void => {
      if ('description' in schema) problems.push(`${where} has a description`);
      if (schema.$ref !== undefined && definitions[schema.$ref.slice('#/definitions/'.length)] === undefined) {
        problems.push(`${where} refers to ${schema.$ref}`);
      }
      if (schema.items) visit(schema.items, `${where}[]`);
      if (schema.additionalProperties) visit(schema.additionalProperties, `${where}{}`);
      for (const [name, child] of Object.entries(schema.properties ?? {})) visit(child, `${where}.${name}`);
    };
    for (const [name, definition] of Object.entries(definitions)) visit(definition, name);
    expect(problems).toEqual([]);
    expect(Object.keys(definitions).length).toBeGreaterThan(1000);
  });
});
