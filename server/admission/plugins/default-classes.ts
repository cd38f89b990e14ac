/**
 * DefaultStorageClass and DefaultIngressClass: a new claim or Ingress that names no class gets
 * the cluster's default one (the class annotated as default; the newest when several are), so
 * that a cluster administrator, not every user, decides where volumes and traffic go.
 */
import { defaultClass, listCached, writes, type StorageOf } from '../lookup';
import type { AdmissionPlugin } from '../types';

interface DefaultClassRule {
  readonly plugin: string;
  /** The kind whose new objects are given a class. */
  readonly group: string;
  readonly resource: string;
  /** `spec.<field>` names the class. */
  readonly field: string;
  /** An annotation that names a class the old way, which also counts as naming one. */
  readonly legacyAnnotation: string;
  /** The class kind, and the annotation that marks a class as the default. */
  readonly classGroup: string;
  readonly classResource: string;
  readonly defaultAnnotation: string;
}

/** On create, sets `spec.<field>` to the default class's name when neither it nor the legacy annotation names one. */
function defaultClassPlugin(storageOf: StorageOf, rule: DefaultClassRule): AdmissionPlugin {
  return {
    name: rule.plugin,
    async admit(attributes) {
      const { object } = attributes;
      if (attributes.operation !== 'CREATE' || !writes(attributes, rule.group, rule.resource) || object === undefined)
        return;
      const spec = (object.spec ??= {}) as Record<string, unknown>;
      if (spec[rule.field] !== undefined && spec[rule.field] !== null) return;
      if (object.metadata.annotations?.[rule.legacyAnnotation] !== undefined) return;
      const classes = await listCached(storageOf(rule.classGroup, rule.classResource));
      const chosen = defaultClass(classes, rule.defaultAnnotation);
      if (chosen !== undefined) spec[rule.field] = chosen.metadata.name;
    },
  };
}

export function defaultStorageClassPlugin(storageOf: StorageOf): AdmissionPlugin {
  return defaultClassPlugin(storageOf, {
    plugin: 'DefaultStorageClass',
    group: '',
    resource: 'persistentvolumeclaims',
    field: 'storageClassName',
    legacyAnnotation: 'volume.beta.kubernetes.io/storage-class',
    classGroup: 'storage.k8s.io',
    classResource: 'storageclasses',
    defaultAnnotation: 'storageclass.kubernetes.io/is-default-class',
  });
}

export function defaultIngressClassPlugin(storageOf: StorageOf): AdmissionPlugin {
  return defaultClassPlugin(storageOf, {
    plugin: 'DefaultIngressClass',
    group: 'networking.k8s.io',
    resource: 'ingresses',
    field: 'ingressClassName',
    legacyAnnotation: 'kubernetes.io/ingress.class',
    classGroup: 'networking.k8s.io',
    classResource: 'ingressclasses',
    defaultAnnotation: 'ingressclass.kubernetes.io/is-default-class',
  });
}
