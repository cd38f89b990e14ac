/**
 * DefaultStorageClass and DefaultIngressClass: a new claim or Ingress that names no class gets
 * the cluster's default one (the class annotated as default; the newest when several are), so
 * that a cluster administrator, not every user, decides where volumes and traffic go.
 */
import type { KubeObject } from '../../../api/objects';
import { defaultClass, listCached, writes, type StorageOf } from '../lookup';
import type { AdmissionPlugin } from '../types';

const DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
const LEGACY_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
const DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const LEGACY_INGRESS_CLASS = 'kubernetes.io/ingress.class';

/** Sets `spec.<field>` to the default class's name when neither it nor the legacy annotation names one. */
async function fillDefaultClass(
  object: KubeObject,
  options: {
    field: string;
    legacyAnnotation: string;
    classes: () => Promise<readonly KubeObject[]>;
    defaultAnnotation: string;
  },
): Promise<void> {
  const spec = (object.spec ??= {}) as Record<string, unknown>;
  if (spec[options.field] !== undefined && spec[options.field] !== null) return;
  if (object.metadata.annotations?.[options.legacyAnnotation] !== undefined) return;
  const chosen = defaultClass(await options.classes(), options.defaultAnnotation);
  if (chosen !== undefined) spec[options.field] = chosen.metadata.name;
}

export function defaultStorageClassPlugin(storageOf: StorageOf): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    async admit(attributes) {
      if (
        attributes.operation !== 'CREATE' ||
        !writes(attributes, '', 'persistentvolumeclaims') ||
        attributes.object === undefined
      )
        return;
      await fillDefaultClass(attributes.object, {
        field: 'storageClassName',
        legacyAnnotation: LEGACY_STORAGE_CLASS,
        classes: () => listCached(storageOf('storage.k8s.io', 'storageclasses')),
        defaultAnnotation: DEFAULT_STORAGE_CLASS,
      });
    },
  };
}

export function defaultIngressClassPlugin(storageOf: StorageOf): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    async admit(attributes) {
      if (
        attributes.operation !== 'CREATE' ||
        !writes(attributes, 'networking.k8s.io', 'ingresses') ||
        attributes.object === undefined
      )
        return;
      await fillDefaultClass(attributes.object, {
        field: 'ingressClassName',
        legacyAnnotation: LEGACY_INGRESS_CLASS,
        classes: () => listCached(storageOf('networking.k8s.io', 'ingressclasses')),
        defaultAnnotation: DEFAULT_INGRESS_CLASS,
      });
    },
  };
}
