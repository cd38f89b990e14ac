/** apiregistration.k8s.io rules (APIService), with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import { apiServiceName, type APIServiceSpec } from '../../api/apiregistration';
import type { FieldError } from '../registry/types';
import { FieldPath, invalid, notSupported, required } from '../status/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, isValidPortNum } from './names';

const spec = FieldPath.root('spec');

/**
 * An APIService is named `<version>.<group>` (`v1.` for the core group), which is how the
 * aggregator finds the one serving a path; the priorities order discovery; a local one (no
 * service) has no TLS settings, and a remote one verifies its server either by caBundle or not at all.
 */
export function validateAPIService(object: KubeObject): FieldError[] {
  const values = (object.spec ?? {}) as APIServiceSpec;
  const group = values.group ?? '';
  const version = values.version ?? '';
  const errors: FieldError[] = [];
  const name = String(object.metadata.name ?? '');
  // The name's own rule (path segment) is the generic metadata check; this is the rest of it.
  const requiredName = apiServiceName({ group, version });
  if (name !== '' && isValidPathSegmentName(name).length === 0 && name !== requiredName) {
    errors.push(
      invalid(
        FieldPath.root('metadata', 'name'),
        name,
        `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`,
      ),
    );
  }
  if (group === '' && version !== 'v1')
    errors.push(required(spec.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '')
    for (const message of isDNS1123Subdomain(group)) errors.push(invalid(spec.child('group'), group, message));
  for (const message of isDNS1035Label(version)) errors.push(invalid(spec.child('version'), version, message));
  const groupPriority = values.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000)
    errors.push(invalid(spec.child('groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'));
  const versionPriority = values.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000)
    errors.push(invalid(spec.child('versionPriority'), versionPriority, 'must be positive and less than 1000'));

  const caBundleBytes = values.caBundle ? Buffer.from(values.caBundle, 'base64').length : 0;
  const service = values.service;
  if (service === undefined || service === null) {
    if (caBundleBytes > 0)
      errors.push(
        invalid(spec.child('caBundle'), `${caBundleBytes} bytes`, 'local APIServices may not have a caBundle'),
      );
    if (values.insecureSkipTLSVerify === true)
      errors.push(
        invalid(spec.child('insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'),
      );
    return errors;
  }
  if (!service.namespace) errors.push(required(spec.child('service', 'namespace')));
  if (!service.name) errors.push(required(spec.child('service', 'name')));
  if (service.port !== undefined) {
    for (const message of isValidPortNum(service.port))
      errors.push(invalid(spec.child('service', 'port'), service.port, `port is not valid: ${message}`));
  }
  if (values.insecureSkipTLSVerify === true && caBundleBytes > 0) {
    errors.push(invalid(spec.child('insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'));
  }
  return errors;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** A status write: only the conditions' statuses are checked (the rest is the aggregator's own). */
export function validateAPIServiceStatus(object: KubeObject): FieldError[] {
  const conditions = ((object.status as { conditions?: unknown } | undefined)?.conditions ?? []) as Array<{
    status?: string;
  }>;
  if (!Array.isArray(conditions)) return [];
  return conditions.flatMap((condition, i) =>
    CONDITION_STATUSES.includes(condition?.status ?? '')
      ? []
      : [
          notSupported(
            FieldPath.root('status', 'conditions').index(i).child('status'),
            condition?.status ?? '',
            CONDITION_STATUSES,
          ),
        ],
  );
}
