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
  SELECTOR_COLUMN,
  ageAndTemplateCells,
  column,
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
    column('Desired', 'integer', 'The number of desired replicas.'),
    column('Current', 'integer', 'The most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas.'),
    ...AGE_AND_TEMPLATE_COLUMNS,
    SELECTOR_COLUMN,
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
    column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
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
    column('Capacity', 'string', 'The capacity of the volume.'),
    column('Access Modes', 'string', 'The ways the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'What happens to the volume when released from its claim.'),
    column('Status', 'string', 'The phase of the volume.'),
    column('Claim', 'string', 'The claim bound to the volume.'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', 'Why the volume is in this phase.'),
    AGE_COLUMN,
    column('VolumeMode', 'string', 'Whether the volume is a filesystem or a block device.', { wide: true }),
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
    column('Provisioner', 'string', 'The provisioner of volumes of this class.'),
    column('ReclaimPolicy', 'string', 'What happens to volumes of this class when released.'),
    column('VolumeBindingMode', 'string', 'When volumes of this class are bound and provisioned.'),
    column('AllowVolumeExpansion', 'string', 'Whether volumes of this class can be expanded.'),
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
  columns: [NAME_COLUMN, column('Pod-Selector', 'string', 'The pods this policy applies to.'), AGE_COLUMN],
  print: (object, now) => ({
    cells: [object.metadata.name, selectorString(record(object.spec).podSelector), ageOf(object, now)],
  }),
};

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('AddressType', 'string', 'The type of address carried by this slice.'),
    column('Ports', 'string', 'The ports exposed by this slice.'),
    column('Endpoints', 'string', 'The endpoints in this slice.'),
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
  columns: [NAME_COLUMN, column('CIDRs', 'string', 'The IP ranges of this ServiceCIDR.'), AGE_COLUMN],
  print: (object, now) => ({
    cells: [object.metadata.name, list(record(object.spec).cidrs).map(text).join(','), ageOf(object, now)],
  }),
};

export const ipAddressPrinter: Printer = {
  columns: [NAME_COLUMN, column('ParentRef', 'string', 'The object this IP address is allocated to.')],
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
    column('SignerName', 'string', 'The signer the request is for.'),
    column('Requestor', 'string', 'The user who created the request.'),
    column('RequestedDuration', 'string', 'The validity the requester asked for.'),
    column('Condition', 'string', 'The request state.'),
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
function admissionPolicyPrinter(rules: 'validations' | 'mutations', title: string): Printer {
  return {
    columns: [
      NAME_COLUMN,
      column(title, 'integer', `The number of ${rules} the policy holds.`),
      column('ParamKind', 'string', 'The kind of the params the policy reads.'),
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

export const validatingAdmissionPolicyPrinter = admissionPolicyPrinter('validations', 'Validations');
export const mutatingAdmissionPolicyPrinter = admissionPolicyPrinter('mutations', 'Mutations');

/** The bindings of both policy kinds print alike. */
export const admissionPolicyBindingPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('PolicyName', 'string', 'The policy the binding binds.'),
    column('ParamRef', 'string', 'The params the binding gives the policy.'),
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
  columns: [NAME_COLUMN, column('Webhooks', 'integer', 'The number of webhooks the configuration holds.'), AGE_COLUMN],
  print: (object, now) => ({ cells: [object.metadata.name, list(object.webhooks).length, ageOf(object, now)] }),
};

export const flowSchemaPrinter: Printer = {
  // The reference declares MatchingPrecedence a string column yet fills it with the number.
  columns: [
    NAME_COLUMN,
    column('PriorityLevel', 'string', 'The name of the priority level configuration being referenced.'),
    column(
      'MatchingPrecedence',
      'string',
      'Chooses among the FlowSchemas that match a request: the numerically lowest wins.',
    ),
    column(
      'DistinguisherMethod',
      'string',
      'How the flow distinguisher is computed for requests that match this schema.',
    ),
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
    column('Type', 'string', 'Whether this priority level is subject to limitation on request execution.'),
    column('NominalConcurrencyShares', 'string', "This level's share of the server's concurrency limit."),
    column('Queues', 'string', 'The number of queues for this priority level.'),
    column('HandSize', 'string', 'How many queues shuffle sharding deals each flow.'),
    column('QueueLengthLimit', 'string', 'The most requests one queue of this level holds waiting.'),
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
  columns: [NAME_COLUMN, column('SignerName', 'string', 'The signer whose trust anchors the bundle holds, if any.')],
  print: (object) => ({ cells: [object.metadata.name, orNone(text(record(object.spec).signerName))] }),
};

/** The condition that settled a request; Issued, Denied and Failed exclude each other. */
const SETTLED_STATES = ['Issued', 'Denied', 'Failed'];

export const podCertificateRequestPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('PodName', 'string', 'The pod the certificate is for.'),
    column('ServiceAccountName', 'string', 'The service account of that pod.'),
    column('NodeName', 'string', 'The node the pod runs on.'),
    column('SignerName', 'string', 'The signer asked to issue the certificate.'),
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
    column('CommonEncodingVersion', 'string', 'The encoding version every API server agrees on, if they do.'),
    column('StorageVersions', 'string', 'The encoding version each API server writes.'),
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
