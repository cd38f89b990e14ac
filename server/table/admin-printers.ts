/**
 * Printers of the kinds a cluster's administrator lists more often than an application's
 * developer does (printers.ts has the everyday ones): pod templates, replication controllers
 * and controller revisions, quotas, disruption budgets, volumes and storage classes, networking
 * kinds, endpoint slices, certificate signing requests, admission policies and webhooks, and
 * flow control, with the columns and cell texts of the reference's printers. LimitRange has no
 * printer there, so it keeps the default Name / Created At table.
 */
import type { KubeObject } from '../../api/objects';
import { ageOf, humanDuration } from './human-duration';
import {
  AGE_AND_TEMPLATE_COLUMNS,
  AGE_COLUMN,
  NAME_COLUMN,
  ageAndTemplateCells,
  column,
  documentedColumn,
  containersAndImages,
  integer,
  list,
  mapSelectorString,
  objectMetaColumn,
  orNone,
  record,
  selectorString,
  text,
} from './columns';
import type { Printer } from './printer';

/** `key=value,...` sorted by key, `<none>` when empty (the reference's labels.FormatLabels). */
const formatLabels = mapSelectorString;

/** An int-or-string as Go's IntOrString.String() prints it. */
function intOrString(value: unknown): string {
  return typeof value === 'number' ? String(value) : text(value);
}

const ACCESS_MODE_ORDER: ReadonlyArray<[string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** Access modes abbreviated in a fixed order, whatever order they were given in. */
function accessModes(modes: unknown): string {
  const given = new Set(list(modes).map(text));
  return ACCESS_MODE_ORDER.filter(([mode]) => given.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** Up to three entries, then `+ N more...`; `<unset>` when empty (the reference's listWithMoreString). */
function listWithMore(entries: readonly string[]): string {
  const shown = entries.slice(0, 3).join(',');
  if (entries.length > 3) return `${shown} + ${entries.length - 3} more...`;
  return shown === '' ? '<unset>' : shown;
}

export const podTemplatePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  print(object) {
    const template = record(object.template);
    const { names, images } = containersAndImages(template.spec);
    return { cells: [object.metadata.name, names, images, formatLabels(record(template.metadata).labels)] };
  },
};

export const replicationControllerPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Desired', 'integer', {
      definition: 'io.k8s.api.core.v1.ReplicationControllerSpec',
      field: 'replicas',
    }),
    documentedColumn('Current', 'integer', {
      definition: 'io.k8s.api.core.v1.ReplicationControllerStatus',
      field: 'replicas',
    }),
    documentedColumn('Ready', 'integer', {
      definition: 'io.k8s.api.core.v1.ReplicationControllerStatus',
      field: 'readyReplicas',
    }),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.core.v1.ReplicationControllerSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const spec = record(object.spec);
    const status = record(object.status);
    return {
      cells: [
        object.metadata.name,
        integer(spec.replicas),
        integer(status.replicas),
        integer(status.readyReplicas),
        ...ageAndTemplateCells(object, now, record(spec.template).spec),
        formatLabels(spec.selector),
      ],
    };
  },
};

/** `kind.group/name` of the controlling owner, lowercased as the reference's formatResourceName. */
function controllerOf(object: KubeObject): string {
  const owner = (object.metadata.ownerReferences ?? []).map(record).find((reference) => reference.controller === true);
  if (owner === undefined) return '<none>';
  const apiVersion = text(owner.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = text(owner.kind);
  if (kind === '') return text(owner.name);
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${text(owner.name)}`;
}

export const controllerRevisionPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller of the object'),
    documentedColumn('Revision', 'string', {
      definition: 'io.k8s.api.apps.v1beta1.ControllerRevision',
      field: 'revision',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [object.metadata.name, controllerOf(object), integer(object.revision), ageOf(object, now)],
  }),
};

export const resourceQuotaPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    AGE_COLUMN,
  ],
  print(object, now) {
    const status = record(object.status);
    const hard = record(status.hard);
    const used = record(status.used);
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort()) {
      const entry = `${resource}: ${text(used[resource]) || '0'}/${text(hard[resource])}`;
      (resource.split('.')[0] === 'limits' && resource.includes('.') ? limits : requests).push(entry);
    }
    return { cells: [object.metadata.name, requests.join(', '), limits.join(', '), ageOf(object, now)] };
  },
};

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  print(object, now) {
    const spec = record(object.spec);
    const shown = (value: unknown) => (value === undefined || value === null ? 'N/A' : intOrString(value));
    return {
      cells: [
        object.metadata.name,
        shown(spec.minAvailable),
        shown(spec.maxUnavailable),
        integer(record(object.status).disruptionsAllowed),
        ageOf(object, now),
      ],
    };
  },
};

export const persistentVolumePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Capacity', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeSpec',
      field: 'capacity',
    }),
    documentedColumn('Access Modes', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeSpec',
      field: 'accessModes',
    }),
    documentedColumn('Reclaim Policy', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeSpec',
      field: 'persistentVolumeReclaimPolicy',
    }),
    documentedColumn('Status', 'string', { definition: 'io.k8s.api.core.v1.PersistentVolumeStatus', field: 'phase' }),
    documentedColumn('Claim', 'string', { definition: 'io.k8s.api.core.v1.PersistentVolumeSpec', field: 'claimRef' }),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    documentedColumn('Reason', 'string', { definition: 'io.k8s.api.core.v1.PersistentVolumeStatus', field: 'reason' }),
    AGE_COLUMN,
    documentedColumn(
      'VolumeMode',
      'string',
      { definition: 'io.k8s.api.core.v1.PersistentVolumeSpec', field: 'volumeMode' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const spec = record(object.spec);
    const status = record(object.status);
    const claim =
      spec.claimRef === undefined || spec.claimRef === null
        ? ''
        : `${text(record(spec.claimRef).namespace)}/${text(record(spec.claimRef).name)}`;
    const storageClass =
      text(object.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']) || text(spec.storageClassName);
    return {
      cells: [
        object.metadata.name,
        text(record(spec.capacity).storage) || '0',
        accessModes(spec.accessModes),
        text(spec.persistentVolumeReclaimPolicy),
        object.metadata.deletionTimestamp ? 'Terminating' : text(status.phase),
        claim,
        storageClass,
        text(spec.volumeAttributesClassName) || '<unset>',
        text(status.reason),
        ageOf(object, now),
        text(spec.volumeMode) || '<unset>',
      ],
    };
  },
};

function isDefaultClass(object: KubeObject): boolean {
  const annotations = object.metadata.annotations ?? {};
  return (
    annotations['storageclass.kubernetes.io/is-default-class'] === 'true' ||
    annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true'
  );
}

export const storageClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Provisioner', 'string', {
      definition: 'io.k8s.api.storage.v1.StorageClass',
      field: 'provisioner',
    }),
    documentedColumn('ReclaimPolicy', 'string', {
      definition: 'io.k8s.api.storage.v1.StorageClass',
      field: 'reclaimPolicy',
    }),
    documentedColumn('VolumeBindingMode', 'string', {
      definition: 'io.k8s.api.storage.v1.StorageClass',
      field: 'volumeBindingMode',
    }),
    documentedColumn('AllowVolumeExpansion', 'string', {
      definition: 'io.k8s.api.storage.v1.StorageClass',
      field: 'allowVolumeExpansion',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [
      isDefaultClass(object) ? `${object.metadata.name} (default)` : object.metadata.name,
      text(object.provisioner),
      text(object.reclaimPolicy) || 'Delete',
      text(object.volumeBindingMode) || 'Immediate',
      object.allowVolumeExpansion === true,
      ageOf(object, now),
    ],
  }),
};

export const ingressClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  print(object, now) {
    const spec = record(object.spec);
    const parameters = spec.parameters === undefined || spec.parameters === null ? undefined : record(spec.parameters);
    const group = parameters === undefined ? '' : text(parameters.apiGroup);
    const shown =
      parameters === undefined
        ? '<none>'
        : `${text(parameters.kind)}${group === '' ? '' : `.${group}`}/${text(parameters.name)}`;
    return { cells: [object.metadata.name, text(spec.controller), shown, ageOf(object, now)] };
  },
};

export const networkPolicyPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Pod-Selector', 'string', {
      definition: 'io.k8s.api.extensions.v1beta1.NetworkPolicySpec',
      field: 'podSelector',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [object.metadata.name, selectorString(record(object.spec).podSelector), ageOf(object, now)],
  }),
};

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('AddressType', 'string', {
      definition: 'io.k8s.api.discovery.v1beta1.EndpointSlice',
      field: 'addressType',
    }),
    documentedColumn('Ports', 'string', { definition: 'io.k8s.api.discovery.v1beta1.EndpointSlice', field: 'ports' }),
    documentedColumn('Endpoints', 'string', {
      definition: 'io.k8s.api.discovery.v1beta1.EndpointSlice',
      field: 'endpoints',
    }),
    AGE_COLUMN,
  ],
  print(object, now) {
    const ports = list(object.ports)
      .map(record)
      .map((port) => (port.port !== undefined ? String(integer(port.port)) : text(port.name) || '*'));
    const addresses = list(object.endpoints).flatMap((endpoint) => list(record(endpoint).addresses).map(text));
    return {
      cells: [
        object.metadata.name,
        text(object.addressType),
        listWithMore(ports),
        listWithMore(addresses),
        ageOf(object, now),
      ],
    };
  },
};

export const serviceCIDRPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('CIDRs', 'string', {
      definition: 'io.k8s.api.networking.v1beta1.ServiceCIDRSpec',
      field: 'cidrs',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [object.metadata.name, list(record(object.spec).cidrs).map(text).join(','), ageOf(object, now)],
  }),
};

export const ipAddressPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('ParentRef', 'string', {
      definition: 'io.k8s.api.networking.v1beta1.IPAddressSpec',
      field: 'parentRef',
    }),
  ],
  print(object) {
    const reference = record(object.spec).parentRef;
    if (reference === undefined || reference === null) return { cells: [object.metadata.name, '<none>'] };
    const { group, resource, namespace, name } = record(reference);
    const groupResource = text(group) === '' ? text(resource) : `${text(resource)}.${text(group)}`;
    return {
      cells: [
        object.metadata.name,
        `${groupResource}/${text(namespace) === '' ? '' : `${text(namespace)}/`}${text(name)}`,
      ],
    };
  },
};

/** Denied or Approved (else Pending), then Failed and Issued, as the reference sums a CSR up. */
function csrCondition(object: KubeObject): string {
  const status = record(object.status);
  const types = new Set(list(status.conditions).map((condition) => text(record(condition).type)));
  let shown = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) shown += ',Failed';
  if (text(status.certificate) !== '') shown += ',Issued';
  return shown;
}

export const certificateSigningRequestPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    documentedColumn('SignerName', 'string', {
      definition: 'io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec',
      field: 'signerName',
    }),
    documentedColumn('Requestor', 'string', {
      definition: 'io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec',
      field: 'request',
    }),
    documentedColumn('RequestedDuration', 'string', {
      definition: 'io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec',
      field: 'expirationSeconds',
    }),
    documentedColumn('Condition', 'string', {
      definition: 'io.k8s.api.certificates.v1beta1.CertificateSigningRequestStatus',
      field: 'conditions',
    }),
  ],
  print(object, now) {
    const spec = record(object.spec);
    const requested =
      typeof spec.expirationSeconds === 'number' ? humanDuration(spec.expirationSeconds * 1000) : '<none>';
    return {
      cells: [
        object.metadata.name,
        ageOf(object, now),
        text(spec.signerName) || '<none>',
        text(spec.username),
        requested,
        csrCondition(object),
      ],
    };
  },
};

/** An admission policy's table: how many rules of its kind (`validations`, `mutations`) it holds, and its params' kind. */
function admissionPolicyPrinter(rules: 'validations' | 'mutations', title: string, description: string): Printer {
  return {
    columns: [
      NAME_COLUMN,
      column(title, 'integer', description),
      column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
      AGE_COLUMN,
    ],
    print: (object, now) => {
      const spec = record(object.spec);
      const paramKind = record(spec.paramKind);
      const shownKind = spec.paramKind ? `${text(paramKind.apiVersion)}/${text(paramKind.kind)}` : '<unset>';
      return { cells: [object.metadata.name, list(spec[rules]).length, shownKind, ageOf(object, now)] };
    },
  };
}

export const validatingAdmissionPolicyPrinter = admissionPolicyPrinter(
  'validations',
  'Validations',
  'Validations indicates the number of validation rules defined in this configuration',
);
export const mutatingAdmissionPolicyPrinter = admissionPolicyPrinter(
  'mutations',
  'Mutations',
  'Mutation indicates the number of mutations rules defined in this configuration',
);

/** The bindings of both policy kinds print alike. */
export const admissionPolicyBindingPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const spec = record(object.spec);
    const paramRef = record(spec.paramRef);
    // A name without a namespace may be of a cluster-scoped kind or of any namespace: `*/name`.
    // A selector prints as Go prints its struct, which is not followed here: `*`.
    const name = text(paramRef.name);
    const shownRef =
      name !== ''
        ? `${text(paramRef.namespace) || '*'}/${name}`
        : paramRef.selector !== undefined && paramRef.selector !== null
          ? '*'
          : '<unset>';
    return { cells: [object.metadata.name, text(spec.policyName), shownRef, ageOf(object, now)] };
  },
};

export const webhookConfigurationPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, list(object.webhooks).length, ageOf(object, now)] }),
};

export const flowSchemaPrinter: Printer = {
  // The reference declares MatchingPrecedence a string column yet fills it with the number.
  columns: [
    NAME_COLUMN,
    documentedColumn('PriorityLevel', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationReference',
      field: 'name',
    }),
    documentedColumn('MatchingPrecedence', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.FlowSchemaSpec',
      field: 'matchingPrecedence',
    }),
    documentedColumn('DistinguisherMethod', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.FlowSchemaSpec',
      field: 'distinguisherMethod',
    }),
    AGE_COLUMN,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  print(object, now) {
    const spec = record(object.spec);
    const dangling = list(record(object.status).conditions)
      .map(record)
      .find((condition) => condition.type === 'Dangling');
    return {
      cells: [
        object.metadata.name,
        text(record(spec.priorityLevelConfiguration).name),
        integer(spec.matchingPrecedence),
        text(record(spec.distinguisherMethod).type) || '<none>',
        ageOf(object, now),
        dangling === undefined ? '?' : text(dangling.status),
      ],
    };
  },
  // Matching order: precedence, then name.
  order: (objects) =>
    [...objects].sort((a, b) => {
      const precedence = (object: KubeObject) => integer(record(object.spec).matchingPrecedence);
      const [x, y] = [String(a.metadata.name), String(b.metadata.name)];
      return precedence(a) - precedence(b) || (x < y ? -1 : x > y ? 1 : 0);
    }),
};

export const priorityLevelPrinter: Printer = {
  // String columns the reference fills with numbers where the level has them.
  columns: [
    NAME_COLUMN,
    documentedColumn('Type', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationSpec',
      field: 'type',
    }),
    documentedColumn('NominalConcurrencyShares', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration',
      field: 'nominalConcurrencyShares',
    }),
    documentedColumn('Queues', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.QueuingConfiguration',
      field: 'queues',
    }),
    documentedColumn('HandSize', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.QueuingConfiguration',
      field: 'handSize',
    }),
    documentedColumn('QueueLengthLimit', 'string', {
      definition: 'io.k8s.api.flowcontrol.v1.QueuingConfiguration',
      field: 'queueLengthLimit',
    }),
    AGE_COLUMN,
  ],
  print(object, now) {
    const spec = record(object.spec);
    const limited = spec.limited === undefined ? undefined : record(spec.limited);
    const queuing = limited === undefined ? undefined : record(record(limited.limitResponse).queuing);
    const queued = queuing !== undefined && Object.keys(queuing).length > 0;
    const orNoneNumber = (value: unknown) => (queued ? integer(value) : '<none>');
    return {
      cells: [
        object.metadata.name,
        text(spec.type),
        limited === undefined ? '<none>' : integer(limited.nominalConcurrencyShares),
        orNoneNumber(queuing?.queues),
        orNoneNumber(queuing?.handSize),
        orNoneNumber(queuing?.queueLengthLimit),
        ageOf(object, now),
      ],
    };
  },
};

export const clusterTrustBundlePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('SignerName', 'string', {
      definition: 'io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec',
      field: 'signerName',
    }),
  ],
  print: (object) => ({ cells: [object.metadata.name, orNone(text(record(object.spec).signerName))] }),
};

/** The condition that settled a request; Issued, Denied and Failed exclude each other. */
const SETTLED_STATES = ['Issued', 'Denied', 'Failed'];

export const podCertificateRequestPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('PodName', 'string', {
      definition: 'io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec',
      field: 'podName',
    }),
    documentedColumn('ServiceAccountName', 'string', {
      definition: 'io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec',
      field: 'serviceAccountName',
    }),
    documentedColumn('NodeName', 'string', {
      definition: 'io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec',
      field: 'nodeName',
    }),
    documentedColumn('SignerName', 'string', {
      definition: 'io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec',
      field: 'signerName',
    }),
    column('State', 'string', 'Is the request Pending, Issued, Denied, or Failed?'),
  ],
  print: (object) => {
    const spec = record(object.spec);
    let state = 'Pending';
    for (const condition of list(record(object.status).conditions)) {
      const type = text(record(condition).type);
      if (SETTLED_STATES.includes(type)) state = type;
    }
    const cells = [spec.podName, spec.serviceAccountName, spec.nodeName, spec.signerName].map(text);
    return { cells: [object.metadata.name, ...cells, state] };
  },
};

export const storageVersionPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('CommonEncodingVersion', 'string', {
      definition: 'io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus',
      field: 'commonEncodingVersion',
    }),
    documentedColumn('StorageVersions', 'string', {
      definition: 'io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus',
      field: 'storageVersions',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const status = record(object.status);
    const common = typeof status.commonEncodingVersion === 'string' ? status.commonEncodingVersion : '<unset>';
    const versions = list(status.storageVersions).map((entry) => {
      const server = record(entry);
      return `${text(server.apiServerID)}=${text(server.encodingVersion)}`;
    });
    return { cells: [object.metadata.name, common, listWithMore(versions), ageOf(object, now)] };
  },
};

export const storageVersionMigrationPrinter: Printer = {
  // The reference gives its Name column no name format.
  columns: [
    objectMetaColumn('Name', 'string', 'name'),
    column('Resource', 'string', 'Fully qualified resource to migrate'),
  ],
  print: (object) => {
    const resource = record(record(object.spec).resource);
    return {
      cells: [object.metadata.name, `${text(resource.resource)}.${text(resource.version)}.${text(resource.group)}`],
    };
  },
};
