/** networking.k8s.io/v1 rules for Ingresses. */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../status/field-error';
import { FieldPath, notSupported, required } from './field-errors';

interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: unknown;
}

export function validateIngress(ingress: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = (ingress.spec as { rules?: { http?: { paths?: IngressPath[] } }[]; defaultBackend?: unknown } | undefined) ?? {};
  const rules = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend === undefined) errors.push(required(FieldPath.root('spec'), 'either `defaultBackend` or `rules` must be specified'));
  rules.forEach((rule, i) => {
    (rule.http?.paths ?? []).forEach((path, j) => {
      const at = FieldPath.root('spec', 'rules').index(i).child('http', 'paths').index(j);
      if (!path.pathType) errors.push(required(at.child('pathType'), 'pathType must be specified'));
      else if (!['Exact', 'ImplementationSpecific', 'Prefix'].includes(path.pathType)) errors.push(notSupported(at.child('pathType'), path.pathType, ['Exact', 'ImplementationSpecific', 'Prefix']));
      if (path.backend === undefined) errors.push(required(at.child('backend')));
    });
  });
  return errors;
}
