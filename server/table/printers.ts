/**
 * The printers of the everyday kinds: table columns and cells as the reference shows them
 * (`kubectl get`). Each kind is given its printer where it is defined (server/registry/kinds/).
 * Kinds without a printer here get the default Name / Created At table.
 */
import type { KubeObject } from '../../api/objects';
import { ageOf, ageSince } from './human-duration';
import {
  AGE_AND_TEMPLATE_COLUMNS,
  AGE_COLUMN,
  CREATED_AT_COLUMN,
  NAME_COLUMN,
  ageAndTemplateCells,
  column,
  documentedColumn,
  integer,
  list,
  mapSelectorString,
  objectMetaColumn,
  orNone,
  record,
  selectorString,
  text,
  type Fields,
} from './columns';
import type { Printer, RowCondition } from './printer';
import { convertEvent } from '../registry/conversion/events';
import { convertHorizontalPodAutoscaler } from '../registry/conversion/hpa';

function specOf(object: KubeObject): Fields {
  return record(object.spec);
}

function statusOf(object: KubeObject): Fields {
  return record(object.status);
}

function templateSpec(object: KubeObject): Fields {
  return record(record(specOf(object).template).spec);
}

// ---------------------------------------------------------------------------------------------
// Pods

/** What the Completed condition of a finished pod's row says, by phase. */
const FINISHED_POD_CONDITIONS: Readonly<Record<string, RowCondition>> = {
  Succeeded: { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
  Failed: { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
};

function hasTrueCondition(status: Fields, type: string): boolean {
  return list(status.conditions)
    .map(record)
    .some((condition) => condition.type === type && condition.status === 'True');
}

/** The time a container last terminated, in ms, or 0. */
function lastTerminated(container: Fields): number {
  const finished = Date.parse(text(record(record(container.lastState).terminated).finishedAt));
  return Number.isNaN(finished) ? 0 : finished;
}

/**
 * A pod's Ready, Status and Restarts cells, as the reference's printPod makes them: the init
 * containers' statuses are read up to the first one still initializing (a sidecar that started
 * counts as ready if it is); once none is, or the pod says it is initialized, the restarts are
 * the sidecars' and the containers', and the status the last container's that has one.
 */
function podSummary(pod: KubeObject): {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: number;
} {
  const spec = specOf(pod);
  const status = statusOf(pod);
  const phase = text(status.phase);
  let reason = text(status.reason) || phase;
  for (const condition of list(status.conditions).map(record))
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  const initContainers = list(spec.initContainers).map(record);
  const sidecars = new Set(
    initContainers.filter((container) => text(container.restartPolicy) === 'Always').map((c) => text(c.name)),
  );
  const total = list(spec.containers).length + sidecars.size;
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;
  let initializing = false;
  for (const [index, container] of list(status.initContainerStatuses).map(record).entries()) {
    restarts += integer(container.restartCount);
    lastRestart = Math.max(lastRestart, lastTerminated(container));
    const sidecar = sidecars.has(text(container.name));
    if (sidecar) {
      sidecarRestarts += integer(container.restartCount);
      lastSidecarRestart = Math.max(lastSidecarRestart, lastTerminated(container));
    }
    const state = record(container.state);
    const terminated =
      state.terminated === undefined || state.terminated === null ? undefined : record(state.terminated);
    const waitingReason = text(record(state.waiting).reason);
    if (terminated !== undefined && integer(terminated.exitCode) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      if (text(terminated.reason) !== '') reason = `Init:${text(terminated.reason)}`;
      else if (integer(terminated.signal) !== 0) reason = `Init:Signal:${integer(terminated.signal)}`;
      else reason = `Init:ExitCode:${integer(terminated.exitCode)}`;
    } else if (waitingReason !== '' && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${index}/${initContainers.length}`;
    initializing = true;
    break;
  }
  if (!initializing || hasTrueCondition(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses).map(record);
    for (let index = statuses.length - 1; index >= 0; index--) {
      const container = statuses[index];
      restarts += integer(container.restartCount);
      lastRestart = Math.max(lastRestart, lastTerminated(container));
      const state = record(container.state);
      const terminated =
        state.terminated === undefined || state.terminated === null ? undefined : record(state.terminated);
      const waitingReason = text(record(state.waiting).reason);
      if (waitingReason !== '') reason = waitingReason;
      else if (terminated !== undefined && text(terminated.reason) !== '') reason = text(terminated.reason);
      else if (terminated !== undefined)
        reason =
          integer(terminated.signal) !== 0
            ? `Signal:${integer(terminated.signal)}`
            : `ExitCode:${integer(terminated.exitCode)}`;
      else if (container.ready === true && state.running !== undefined && state.running !== null) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasTrueCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }
  if (pod.metadata.deletionTimestamp) {
    if (text(status.reason) === 'NodeLost') reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  }
  return { ready, total, reason, restarts, lastRestart };
}

export const podPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE_COLUMN,
    documentedColumn('IP', 'string', { definition: 'io.k8s.api.core.v1.PodStatus', field: 'podIP' }, { wide: true }),
    documentedColumn('Node', 'string', { definition: 'io.k8s.api.core.v1.PodSpec', field: 'nodeName' }, { wide: true }),
    documentedColumn(
      'Nominated Node',
      'string',
      { definition: 'io.k8s.api.core.v1.PodStatus', field: 'nominatedNodeName' },
      { wide: true },
    ),
    documentedColumn(
      'Readiness Gates',
      'string',
      { definition: 'io.k8s.api.core.v1.PodSpec', field: 'readinessGates' },
      { wide: true },
    ),
  ],
  print(pod, now) {
    const spec = specOf(pod);
    const status = statusOf(pod);
    const { ready, total, reason, restarts, lastRestart } = podSummary(pod);
    const restartText =
      restarts !== 0 && lastRestart !== 0
        ? `${restarts} (${ageSince(new Date(lastRestart).toISOString(), now)} ago)`
        : String(restarts);
    const gates = list(spec.readinessGates).map(record);
    const trueConditions = new Set(
      list(status.conditions)
        .map(record)
        .filter((condition) => condition.status === 'True')
        .map((condition) => text(condition.type)),
    );
    const gatesText =
      gates.length === 0
        ? '<none>'
        : `${gates.filter((gate) => trueConditions.has(text(gate.conditionType))).length}/${gates.length}`;
    return {
      cells: [
        pod.metadata.name,
        `${ready}/${total}`,
        reason,
        restartText,
        ageOf(pod, now),
        orNone(text(status.podIP)),
        orNone(text(spec.nodeName)),
        orNone(text(status.nominatedNodeName)),
        gatesText,
      ],
      ...(FINISHED_POD_CONDITIONS[text(status.phase)]
        ? { conditions: [FINISHED_POD_CONDITIONS[text(status.phase)]] }
        : {}),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Workloads

export const deploymentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    // The reference types these Deployment counts `string`, the DaemonSet's alike `integer`.
    documentedColumn('Up-to-date', 'string', {
      definition: 'io.k8s.api.extensions.v1beta1.DeploymentStatus',
      field: 'updatedReplicas',
    }),
    documentedColumn('Available', 'string', {
      definition: 'io.k8s.api.extensions.v1beta1.DeploymentStatus',
      field: 'availableReplicas',
    }),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.extensions.v1beta1.DeploymentSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const status = statusOf(object);
    return {
      cells: [
        object.metadata.name,
        `${integer(status.readyReplicas)}/${integer(specOf(object).replicas)}`,
        integer(status.updatedReplicas),
        integer(status.availableReplicas),
        ...ageAndTemplateCells(object, now, templateSpec(object)),
        selectorString(specOf(object).selector),
      ],
    };
  },
};

export const replicaSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Desired', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.ReplicaSetSpec',
      field: 'replicas',
    }),
    documentedColumn('Current', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.ReplicaSetStatus',
      field: 'replicas',
    }),
    documentedColumn('Ready', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.ReplicaSetStatus',
      field: 'readyReplicas',
    }),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.extensions.v1beta1.ReplicaSetSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const status = statusOf(object);
    return {
      cells: [
        object.metadata.name,
        integer(specOf(object).replicas),
        integer(status.replicas),
        integer(status.readyReplicas),
        ...ageAndTemplateCells(object, now, templateSpec(object)),
        selectorString(specOf(object).selector),
      ],
    };
  },
};

export const statefulSetPrinter: Printer = {
  columns: [NAME_COLUMN, column('Ready', 'string', 'Number of the pod with ready state'), ...AGE_AND_TEMPLATE_COLUMNS],
  print(object, now) {
    return {
      cells: [
        object.metadata.name,
        `${integer(statusOf(object).readyReplicas)}/${integer(specOf(object).replicas)}`,
        ...ageAndTemplateCells(object, now, templateSpec(object)),
      ],
    };
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Desired', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.DaemonSetStatus',
      field: 'desiredNumberScheduled',
    }),
    documentedColumn('Current', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.DaemonSetStatus',
      field: 'currentNumberScheduled',
    }),
    documentedColumn('Ready', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.DaemonSetStatus',
      field: 'numberReady',
    }),
    documentedColumn('Up-to-date', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.DaemonSetStatus',
      field: 'updatedNumberScheduled',
    }),
    documentedColumn('Available', 'integer', {
      definition: 'io.k8s.api.extensions.v1beta1.DaemonSetStatus',
      field: 'numberAvailable',
    }),
    documentedColumn('Node Selector', 'string', { definition: 'io.k8s.api.core.v1.PodSpec', field: 'nodeSelector' }),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.extensions.v1beta1.DaemonSetSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const status = statusOf(object);
    return {
      cells: [
        object.metadata.name,
        integer(status.desiredNumberScheduled),
        integer(status.currentNumberScheduled),
        integer(status.numberReady),
        integer(status.updatedNumberScheduled),
        integer(status.numberAvailable),
        mapSelectorString(templateSpec(object).nodeSelector),
        ...ageAndTemplateCells(object, now, templateSpec(object)),
        selectorString(specOf(object).selector),
      ],
    };
  },
};

function jobStatus(status: Fields, spec: Fields): string {
  const conditions = list(status.conditions).map(record);
  const has = (type: string): boolean =>
    conditions.some((condition) => condition.type === type && condition.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (spec.suspend === true || has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (status.terminating !== undefined && integer(status.terminating) > 0) return 'Terminating';
  return 'Running';
}

export const jobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    documentedColumn('Completions', 'string', { definition: 'io.k8s.api.batch.v1.JobStatus', field: 'succeeded' }),
    column('Duration', 'string', 'Time required to complete the job.'),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.batch.v1.JobSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const spec = specOf(object);
    const status = statusOf(object);
    const succeeded = integer(status.succeeded);
    let completions: string;
    if (spec.completions !== undefined && spec.completions !== null)
      completions = `${succeeded}/${integer(spec.completions)}`;
    else
      completions = integer(spec.parallelism) > 1 ? `${succeeded}/1 of ${integer(spec.parallelism)}` : `${succeeded}/1`;
    const start = Date.parse(text(status.startTime));
    const end = Date.parse(text(status.completionTime));
    const duration = Number.isNaN(start)
      ? ''
      : ageSince(new Date(start).toISOString(), Number.isNaN(end) ? now : new Date(end));
    return {
      cells: [
        object.metadata.name,
        jobStatus(status, spec),
        completions,
        duration,
        ...ageAndTemplateCells(object, now, templateSpec(object)),
        selectorString(spec.selector),
      ],
    };
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Schedule', 'string', { definition: 'io.k8s.api.batch.v1beta1.CronJobSpec', field: 'schedule' }),
    documentedColumn('Timezone', 'string', { definition: 'io.k8s.api.batch.v1beta1.CronJobSpec', field: 'timeZone' }),
    documentedColumn('Suspend', 'boolean', { definition: 'io.k8s.api.batch.v1beta1.CronJobSpec', field: 'suspend' }),
    documentedColumn('Active', 'integer', { definition: 'io.k8s.api.batch.v1beta1.CronJobStatus', field: 'active' }),
    documentedColumn('Last Schedule', 'string', {
      definition: 'io.k8s.api.batch.v1beta1.CronJobStatus',
      field: 'lastScheduleTime',
    }),
    ...AGE_AND_TEMPLATE_COLUMNS,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.batch.v1.JobSpec', field: 'selector' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const spec = specOf(object);
    const status = statusOf(object);
    const jobSpec = record(record(spec.jobTemplate).spec);
    const last = text(status.lastScheduleTime);
    return {
      cells: [
        object.metadata.name,
        text(spec.schedule),
        orNone(text(spec.timeZone)),
        // A boolean column, yet the reference writes the word (its printBoolPtr): True, False or <unset>.
        typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>',
        list(status.active).length,
        last === '' ? '<none>' : ageSince(last, now),
        ...ageAndTemplateCells(object, now, record(record(jobSpec.template).spec)),
        selectorString(jobSpec.selector),
      ],
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Core

function servicePorts(spec: Fields): string {
  const ports = list(spec.ports).map(record);
  if (ports.length === 0) return '<none>';
  return ports
    .map((port) => {
      const protocol = text(port.protocol) || 'TCP';
      return integer(port.nodePort) > 0
        ? `${integer(port.port)}:${integer(port.nodePort)}/${protocol}`
        : `${integer(port.port)}/${protocol}`;
    })
    .join(',');
}

function serviceExternalIP(spec: Fields, status: Fields): string {
  const externalIPs = list(spec.externalIPs).map(text);
  switch (text(spec.type)) {
    case 'LoadBalancer': {
      const ingress = list(record(status.loadBalancer).ingress)
        .map(record)
        .map((entry) => text(entry.ip) || text(entry.hostname));
      const all = [...ingress, ...externalIPs].filter((address) => address !== '');
      return all.length === 0 ? '<pending>' : all.join(',');
    }
    case 'ExternalName':
      return text(spec.externalName);
    default:
      return externalIPs.length === 0 ? '<none>' : externalIPs.join(',');
  }
}

export const servicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Type', 'string', { definition: 'io.k8s.api.core.v1.ServiceSpec', field: 'type' }),
    documentedColumn('Cluster-IP', 'string', { definition: 'io.k8s.api.core.v1.ServiceSpec', field: 'clusterIP' }),
    documentedColumn('External-IP', 'string', { definition: 'io.k8s.api.core.v1.ServiceSpec', field: 'externalIPs' }),
    documentedColumn('Port(s)', 'string', { definition: 'io.k8s.api.core.v1.ServiceSpec', field: 'ports' }),
    AGE_COLUMN,
    documentedColumn(
      'Selector',
      'string',
      { definition: 'io.k8s.api.core.v1.ServiceSpec', field: 'selector' },
      {
        wide: true,
      },
    ),
  ],
  print(object, now) {
    const spec = specOf(object);
    return {
      cells: [
        object.metadata.name,
        text(spec.type) || 'ClusterIP',
        orNone(text(spec.clusterIP)),
        serviceExternalIP(spec, statusOf(object)),
        servicePorts(spec),
        ageOf(object, now),
        mapSelectorString(spec.selector),
      ],
    };
  },
};

export const namespacePrinter: Printer = {
  columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
  print: (object, now) => ({ cells: [object.metadata.name, text(statusOf(object).phase), ageOf(object, now)] }),
};

const CONFIG_MAP = 'io.k8s.api.core.v1.ConfigMap';
const SECRET = 'io.k8s.api.core.v1.Secret';

export const configMapPrinter: Printer = {
  // The reference types both Data columns `string` while their cells are counts.
  columns: [NAME_COLUMN, documentedColumn('Data', 'string', { definition: CONFIG_MAP, field: 'data' }), AGE_COLUMN],
  print: (object, now) => ({
    cells: [
      object.metadata.name,
      Object.keys(record(object.data)).length + Object.keys(record(object.binaryData)).length,
      ageOf(object, now),
    ],
  }),
};

export const secretPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Type', 'string', { definition: SECRET, field: 'type' }),
    documentedColumn('Data', 'string', { definition: SECRET, field: 'data' }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [object.metadata.name, text(object.type), Object.keys(record(object.data)).length, ageOf(object, now)],
  }),
};

export const serviceAccountPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Secrets', 'string', { definition: 'io.k8s.api.core.v1.ServiceAccount', field: 'secrets' }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, list(object.secrets).length, ageOf(object, now)] }),
};

function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (key === 'kubernetes.io/role' && value !== '') {
      roles.add(value);
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export const nodePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE_COLUMN,
    documentedColumn('Version', 'string', { definition: 'io.k8s.api.core.v1.NodeSystemInfo', field: 'kubeletVersion' }),
    documentedColumn(
      'Internal-IP',
      'string',
      { definition: 'io.k8s.api.core.v1.NodeStatus', field: 'addresses' },
      { wide: true },
    ),
    documentedColumn(
      'External-IP',
      'string',
      { definition: 'io.k8s.api.core.v1.NodeStatus', field: 'addresses' },
      { wide: true },
    ),
    documentedColumn(
      'OS-Image',
      'string',
      { definition: 'io.k8s.api.core.v1.NodeSystemInfo', field: 'osImage' },
      { wide: true },
    ),
    documentedColumn(
      'Kernel-Version',
      'string',
      { definition: 'io.k8s.api.core.v1.NodeSystemInfo', field: 'kernelVersion' },
      { wide: true },
    ),
    documentedColumn(
      'Container-Runtime',
      'string',
      { definition: 'io.k8s.api.core.v1.NodeSystemInfo', field: 'containerRuntimeVersion' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const status = statusOf(object);
    // The last Ready condition decides, as the reference's map of conditions keeps the last;
    // any status but True (Unknown included) is NotReady.
    const ready = list(status.conditions)
      .map(record)
      .findLast((condition) => condition.type === 'Ready');
    const states = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
    if (specOf(object).unschedulable === true) states.push('SchedulingDisabled');
    const addresses = list(status.addresses).map(record);
    const address = (type: string): string =>
      orNone(
        addresses
          .filter((entry) => entry.type === type)
          .map((entry) => text(entry.address))
          .join(','),
      );
    const info = record(status.nodeInfo);
    return {
      cells: [
        object.metadata.name,
        states.join(','),
        nodeRoles(object.metadata.labels),
        ageOf(object, now),
        text(info.kubeletVersion),
        address('InternalIP'),
        address('ExternalIP'),
        orNone(text(info.osImage)) === '<none>' ? '<unknown>' : text(info.osImage),
        orNone(text(info.kernelVersion)) === '<none>' ? '<unknown>' : text(info.kernelVersion),
        orNone(text(info.containerRuntimeVersion)) === '<none>' ? '<unknown>' : text(info.containerRuntimeVersion),
      ],
    };
  },
};

export const eventPrinter: Printer = {
  columns: [
    documentedColumn('Last Seen', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'lastTimestamp' }),
    documentedColumn('Type', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'type' }),
    documentedColumn('Reason', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'reason' }),
    documentedColumn('Object', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'involvedObject' }),
    documentedColumn(
      'Subobject',
      'string',
      { definition: 'io.k8s.api.core.v1.ObjectReference', field: 'fieldPath' },
      { wide: true },
    ),
    documentedColumn('Source', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'source' }, { wide: true }),
    documentedColumn('Message', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'message' }),
    documentedColumn(
      'First Seen',
      'string',
      { definition: 'io.k8s.api.core.v1.Event', field: 'firstTimestamp' },
      { wide: true },
    ),
    documentedColumn('Count', 'string', { definition: 'io.k8s.api.core.v1.Event', field: 'count' }, { wide: true }),
    objectMetaColumn('Name', 'string', 'name', { wide: true, format: 'name' }),
  ],
  // The reference's printEvent: a series' last observation and count win; an event of the new
  // API without a count is one event.
  print(object, now) {
    const involved = record(object.involvedObject);
    const source = record(object.source);
    const series = object.series === undefined || object.series === null ? undefined : record(object.series);
    const firstSeen = text(object.firstTimestamp)
      ? ageSince(object.firstTimestamp, now)
      : ageSince(object.eventTime, now);
    let lastSeen = text(object.lastTimestamp) ? ageSince(object.lastTimestamp, now) : firstSeen;
    let count = integer(object.count);
    if (series !== undefined) {
      lastSeen = ageSince(series.lastObservedTime, now);
      count = integer(series.count);
    } else if (count === 0) count = 1;
    const component = text(source.component) || text(object.reportingComponent);
    const instance = text(source.host) || text(object.reportingInstance);
    const name = text(involved.name);
    const kind = text(involved.kind).toLowerCase();
    return {
      cells: [
        lastSeen,
        text(object.type),
        text(object.reason),
        name === '' ? kind : `${kind}/${name}`,
        text(involved.fieldPath),
        instance === '' ? component : `${component}, ${instance}`,
        text(object.message).trim(),
        firstSeen,
        count,
        object.metadata.name,
      ],
    };
  },
};

/** events.k8s.io Events print as core Events do: the reference prints both from one internal type. */
export const eventsApiEventPrinter: Printer = {
  columns: eventPrinter.columns,
  print: (object, now) => eventPrinter.print(convertEvent(object, { group: '', version: 'v1' }), now),
};

export const endpointsPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Endpoints', 'string', { definition: 'io.k8s.api.core.v1.Endpoints', field: 'subsets' }),
    AGE_COLUMN,
  ],
  print(object, now) {
    const addresses: string[] = [];
    for (const subset of list(object.subsets).map(record)) {
      const ports = list(subset.ports).map(record);
      for (const address of list(subset.addresses).map(record)) {
        if (ports.length === 0) addresses.push(text(address.ip));
        for (const port of ports) addresses.push(`${text(address.ip)}:${integer(port.port)}`);
      }
    }
    const shown = addresses.slice(0, 3).join(',');
    const more = addresses.length > 3 ? ` + ${addresses.length - 3} more...` : '';
    return { cells: [object.metadata.name, addresses.length === 0 ? '<none>' : shown + more, ageOf(object, now)] };
  },
};

export const pvcPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Status', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus',
      field: 'phase',
    }),
    documentedColumn('Volume', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec',
      field: 'volumeName',
    }),
    documentedColumn('Capacity', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus',
      field: 'capacity',
    }),
    documentedColumn('Access Modes', 'string', {
      definition: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus',
      field: 'accessModes',
    }),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE_COLUMN,
    documentedColumn(
      'VolumeMode',
      'string',
      { definition: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec', field: 'volumeMode' },
      { wide: true },
    ),
  ],
  print(object, now) {
    const spec = specOf(object);
    const status = statusOf(object);
    const bound = text(spec.volumeName) !== '';
    const modes = list(status.accessModes)
      .map(text)
      .map(
        (mode) =>
          ({ ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' })[mode] ?? mode,
      );
    return {
      cells: [
        object.metadata.name,
        object.metadata.deletionTimestamp ? 'Terminating' : text(status.phase),
        text(spec.volumeName),
        bound ? text(record(status.capacity).storage) : '',
        bound ? modes.join(',') : '',
        text(spec.storageClassName) || text(object.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']),
        orNone(text(spec.volumeAttributesClassName)) === '<none>' ? '<unset>' : text(spec.volumeAttributesClassName),
        ageOf(object, now),
        text(spec.volumeMode) || '<unset>',
      ],
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Other groups

export const leasePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Holder', 'string', {
      definition: 'io.k8s.api.coordination.v1.LeaseSpec',
      field: 'holderIdentity',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, text(specOf(object).holderIdentity), ageOf(object, now)] }),
};

export const leaseCandidatePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('LeaseName', 'string', {
      definition: 'io.k8s.api.coordination.v1alpha2.LeaseCandidateSpec',
      field: 'leaseName',
    }),
    documentedColumn('BinaryVersion', 'string', {
      definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      field: 'binaryVersion',
    }),
    documentedColumn('EmulationVersion', 'string', {
      definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      field: 'emulationVersion',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const spec = specOf(object);
    const cells = [spec.leaseName, spec.binaryVersion, spec.emulationVersion].map(text);
    return { cells: [object.metadata.name, ...cells, ageOf(object, now)] };
  },
};

export const rolePrinter: Printer = {
  columns: [NAME_COLUMN, CREATED_AT_COLUMN],
  print: (object) => ({ cells: [object.metadata.name, text(object.metadata.creationTimestamp)] }),
};

/** RoleBindings' and ClusterRoleBindings' tables, whose Role column each kind's roleRef documentation describes. */
function bindingPrinter(definition: string, binding: 'roleBinding' | 'clusterRoleBinding'): Printer {
  return {
    columns: [
      NAME_COLUMN,
      documentedColumn('Role', 'string', { definition, field: 'roleRef' }),
      AGE_COLUMN,
      column('Users', 'string', `Users in the ${binding}`, { wide: true }),
      column('Groups', 'string', `Groups in the ${binding}`, { wide: true }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${binding}`, { wide: true }),
    ],
    print(object, now) {
      const roleRef = record(object.roleRef);
      const subjects = list(object.subjects).map(record);
      const of = (kind: string): string =>
        subjects
          .filter((subject) => subject.kind === kind)
          .map((subject) =>
            kind === 'ServiceAccount' ? `${text(subject.namespace)}/${text(subject.name)}` : text(subject.name),
          )
          .join(', ');
      return {
        cells: [
          object.metadata.name,
          `${text(roleRef.kind)}/${text(roleRef.name)}`,
          ageOf(object, now),
          of('User'),
          of('Group'),
          of('ServiceAccount'),
        ],
      };
    },
  };
}

export const roleBindingPrinter = bindingPrinter('io.k8s.api.rbac.v1beta1.RoleBinding', 'roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter(
  'io.k8s.api.rbac.v1beta1.ClusterRoleBinding',
  'clusterRoleBinding',
);

export const ingressPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  print(object, now) {
    const spec = specOf(object);
    const hosts = list(spec.rules)
      .map(record)
      .map((rule) => text(rule.host))
      .filter((host) => host !== '');
    const hostText =
      hosts.length === 0
        ? '*'
        : hosts.slice(0, 4).join(',') + (hosts.length > 4 ? ` + ${hosts.length - 4} more...` : '');
    const addresses = list(record(statusOf(object).loadBalancer).ingress)
      .map(record)
      .map((entry) => text(entry.ip) || text(entry.hostname));
    return {
      cells: [
        object.metadata.name,
        text(spec.ingressClassName) || '<none>',
        hostText,
        addresses.join(','),
        list(spec.tls).length > 0 ? '80, 443' : '80',
        ageOf(object, now),
      ],
    };
  },
};

export const hpaPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Reference', 'string', {
      definition: 'io.k8s.api.autoscaling.v2beta1.HorizontalPodAutoscalerSpec',
      field: 'scaleTargetRef',
    }),
    documentedColumn('Targets', 'string', {
      definition: 'io.k8s.api.autoscaling.v2beta1.HorizontalPodAutoscalerSpec',
      field: 'metrics',
    }),
    documentedColumn('MinPods', 'string', {
      definition: 'io.k8s.api.autoscaling.v2beta1.HorizontalPodAutoscalerSpec',
      field: 'minReplicas',
    }),
    documentedColumn('MaxPods', 'string', {
      definition: 'io.k8s.api.autoscaling.v2beta1.HorizontalPodAutoscalerSpec',
      field: 'maxReplicas',
    }),
    documentedColumn('Replicas', 'string', {
      definition: 'io.k8s.api.autoscaling.v2beta1.HorizontalPodAutoscalerStatus',
      field: 'currentReplicas',
    }),
    AGE_COLUMN,
  ],
  // Printed from autoscaling/v2, as the reference prints its internal form: a v1 object's
  // other metrics (kept in its annotations) show too.
  print(served, now) {
    const object = convertHorizontalPodAutoscaler(served, { group: 'autoscaling', version: 'v2' });
    const spec = specOf(object);
    const status = statusOf(object);
    const reference = record(spec.scaleTargetRef);
    const minPods = spec.minReplicas === undefined ? '<unset>' : String(integer(spec.minReplicas));
    return {
      cells: [
        object.metadata.name,
        `${text(reference.kind)}/${text(reference.name)}`,
        hpaTargets(spec, status),
        minPods,
        integer(spec.maxReplicas),
        integer(status.currentReplicas),
        ageOf(object, now),
      ],
    };
  },
};

/** A Quantity as Go's `(*Quantity).String` prints it: `<nil>` when there is none. */
function quantityText(value: unknown): string {
  return value === undefined || value === null ? '<nil>' : String(value);
}

/** A utilization percentage, or `fallback` when there is none. */
function percentOr(value: unknown, fallback: string): string {
  return value === undefined || value === null ? fallback : `${integer(value)}%`;
}

/**
 * One metric's current value against its target, as the reference prints autoscaling/v2's
 * metrics: a value or an average (marked `(avg)` for external and object metrics), or a
 * resource's utilization; `current` is the status's metric of the same index.
 */
function hpaMetricText(metric: Fields, current: Fields | undefined): string {
  const type = text(metric.type);
  const sourceKey: Record<string, string> = {
    External: 'external',
    Pods: 'pods',
    Object: 'object',
    Resource: 'resource',
    ContainerResource: 'containerResource',
  };
  const key = sourceKey[type];
  if (key === undefined) return '<unknown type>';
  const target = record(record(metric[key]).target);
  const reported =
    current?.[key] === undefined || current[key] === null ? undefined : record(record(current[key]).current);
  if (type === 'Pods')
    return `${reported ? quantityText(reported.averageValue) : '<unknown>'}/${quantityText(target.averageValue)}`;
  if (type === 'External' || type === 'Object') {
    if (target.averageValue !== undefined && target.averageValue !== null) {
      const now = reported?.averageValue != null ? quantityText(reported.averageValue) : '<unknown>';
      return `${now}/${quantityText(target.averageValue)} (avg)`;
    }
    return `${reported ? quantityText(reported.value) : '<unknown>'}/${quantityText(target.value)}`;
  }
  const name = text(record(metric[key]).name);
  if (target.averageValue !== undefined && target.averageValue !== null)
    return `${name}: ${reported ? quantityText(reported.averageValue) : '<unknown>'}/${quantityText(target.averageValue)}`;
  return `${name}: ${percentOr(reported?.averageUtilization, '<unknown>')}/${percentOr(target.averageUtilization, '<auto>')}`;
}

/** autoscaling/v2's metrics against their status, the first two and how many more. */
function hpaTargets(spec: Fields, status: Fields): string {
  const metrics = list(spec.metrics).map(record);
  if (metrics.length === 0) return '<none>';
  const currents = list(status.currentMetrics).map(record);
  const texts = metrics.map((metric, index) => hpaMetricText(metric, currents[index]));
  return texts.slice(0, 2).join(', ') + (texts.length > 2 ? ` + ${texts.length - 2} more...` : '');
}

export const priorityClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Value', 'integer', { definition: 'io.k8s.api.scheduling.v1.PriorityClass', field: 'value' }),
    documentedColumn('Global-Default', 'boolean', {
      definition: 'io.k8s.api.scheduling.v1.PriorityClass',
      field: 'globalDefault',
    }),
    AGE_COLUMN,
    documentedColumn('PreemptionPolicy', 'string', {
      definition: 'io.k8s.api.scheduling.v1.PriorityClass',
      field: 'preemptionPolicy',
    }),
  ],
  print: (object, now) => ({
    cells: [
      object.metadata.name,
      integer(object.value),
      object.globalDefault === true,
      ageOf(object, now),
      text(object.preemptionPolicy) || 'PreemptLowerPriority',
    ],
  }),
};

/** Every condition's status as Healthy or Unhealthy, with their messages and errors (the reference's componentstatus printer). */
export const componentStatusPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  print(object) {
    const conditions = list(object.conditions).map(record);
    const statuses = conditions.map((condition) => (condition.status === 'True' ? 'Healthy' : 'Unhealthy'));
    const join = (key: string) =>
      conditions
        .map((condition) => text(condition[key]))
        .filter((value) => value !== '')
        .join(',');
    return {
      cells: [
        object.metadata.name,
        statuses.length === 0 ? 'Unknown' : statuses.join(','),
        join('message'),
        join('error'),
      ],
    };
  },
};
