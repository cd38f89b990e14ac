/**
 * A Service's node ports and health check node port, taken from and given back to the shared
 * bitmap (port-bitmap.ts) as a 1.34 kube-apiserver's Service registry does it:
 *
 * - NodePort and LoadBalancer Services get a node port per port number (ports of one number
 *   and different protocols share it), the one asked for or one at random; a LoadBalancer with
 *   `allocateLoadBalancerNodePorts: false` gets only those asked for;
 * - a LoadBalancer with `externalTrafficPolicy: Local` gets a `healthCheckNodePort`;
 * - an update takes what the new spec adds and, once stored, gives back what it dropped (a
 *   change to ClusterIP or ExternalName drops them all); a deletion gives back all.
 *
 * Each Service's ports are taken in one compare-and-swap of the bitmap. What a write took is
 * given back when the write fails.
 */
import type { KubeObject } from '../../../api/objects';
import { internalError, invalid } from '../../status/catalogue';
import { FieldPath, invalid as invalidField } from '../../status/field-errors';
import type { FinishWrite } from '../store/hooks';
import type { PortBitmap, SharedPortBitmap } from './port-bitmap';
import { RANGE_FULL } from './port-bitmap';

interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
  nodePort?: number;
}

export interface NodePortSpec {
  type?: string;
  ports?: ServicePort[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
}

function specOf(service: KubeObject | undefined): NodePortSpec {
  return (service?.spec ?? {}) as NodePortSpec;
}

/** NodePort and LoadBalancer Services are reached on node ports. */
export function needsNodePort(spec: NodePortSpec): boolean {
  return spec.type === 'NodePort' || spec.type === 'LoadBalancer';
}

/** Whether ports not asked for are picked (a LoadBalancer may opt out). */
function allocatesNodePorts(spec: NodePortSpec): boolean {
  if (spec.type === 'NodePort') return true;
  return spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false;
}

export function needsHealthCheckNodePort(spec: NodePortSpec): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** The node ports of a spec's ports (the health check's aside), each once. */
export function nodePortsOf(spec: NodePortSpec): number[] {
  return [...new Set((spec.ports ?? []).map((port) => port.nodePort ?? 0).filter((port) => port !== 0))];
}

/** Every port a stored Service holds: its node ports, and its health check port when it needs one. */
export function heldNodePorts(spec: NodePortSpec): number[] {
  const ports = nodePortsOf(spec);
  if (
    needsHealthCheckNodePort(spec) &&
    (spec.healthCheckNodePort ?? 0) !== 0 &&
    !ports.includes(spec.healthCheckNodePort!)
  )
    ports.push(spec.healthCheckNodePort!);
  return ports;
}

/** What one allocation did to the bitmap. */
interface PortChange {
  /** Taken by this write: given back if it fails. */
  readonly taken: number[];
  /** Held by the old object and dropped: given back once the write is stored. */
  readonly dropped: number[];
  /** The ports as they will be stored (nodePort per port index, health check port). */
  readonly nodePorts: (number | undefined)[];
  readonly healthCheckNodePort?: number;
}

const SERVICE_KIND = { group: '', kind: 'Service' };

export class ServiceNodePorts {
  constructor(private readonly bitmap: SharedPortBitmap) {}

  get range(): SharedPortBitmap['range'] {
    return this.bitmap.range;
  }

  /** Takes the ports of a new Service (may fill its `nodePort`s and `healthCheckNodePort`); a dry run takes none. */
  async allocate(service: KubeObject, { dryRun = false } = {}): Promise<FinishWrite> {
    const spec = specOf(service);
    if (!needsNodePort(spec)) return async () => undefined;
    const name = service.metadata.name ?? '';
    const run = dryRun ? this.bitmap.dryRun.bind(this.bitmap) : this.bitmap.change.bind(this.bitmap);
    const change = await run((bitmap): PortChange => {
      const taken: number[] = [];
      const nodePorts = allocateForCreate(spec, name, bitmap, taken);
      const healthCheckNodePort = needsHealthCheckNodePort(spec) ? allocateHealthCheck(spec, bitmap, taken) : undefined;
      return { taken, dropped: [], nodePorts, healthCheckNodePort };
    });
    applyChange(spec, change);
    return dryRun ? async () => undefined : (stored) => this.settle(change, stored);
  }

  /** Takes what an update adds; once stored, gives back what it drops. A dry run takes and gives back nothing. */
  async update(service: KubeObject, old: KubeObject, { dryRun = false } = {}): Promise<FinishWrite> {
    const spec = specOf(service);
    const oldSpec = specOf(old);
    if (!needsNodePort(spec) && !needsNodePort(oldSpec)) return async () => undefined;
    const name = service.metadata.name ?? '';
    const run = dryRun ? this.bitmap.dryRun.bind(this.bitmap) : this.bitmap.change.bind(this.bitmap);
    const change = await run((bitmap) => allocateForUpdate(spec, oldSpec, name, bitmap));
    applyChange(spec, change);
    return dryRun ? async () => undefined : (stored) => this.settle(change, stored);
  }

  /** Gives back every port a deleted Service held. */
  async release(service: KubeObject): Promise<void> {
    const ports = heldNodePorts(specOf(service));
    if (ports.length > 0) await this.bitmap.change((bitmap) => ports.forEach((port) => bitmap.release(port)));
  }

  private async settle(change: PortChange, stored: boolean): Promise<void> {
    const giveBack = stored ? change.dropped : change.taken;
    if (giveBack.length > 0) await this.bitmap.change((bitmap) => giveBack.forEach((port) => bitmap.release(port)));
  }
}

function applyChange(spec: NodePortSpec, change: PortChange): void {
  (spec.ports ?? []).forEach((port, i) => {
    const nodePort = change.nodePorts[i];
    if (nodePort !== undefined) port.nodePort = nodePort;
  });
  if (change.healthCheckNodePort !== undefined) spec.healthCheckNodePort = change.healthCheckNodePort;
}

function nodePortPath(i: number): FieldPath {
  return FieldPath.root('spec', 'ports').index(i).child('nodePort');
}

function refuse(name: string, i: number, port: number, message: string): Error {
  return invalid(SERVICE_KIND, name, [invalidField(nodePortPath(i), port, message)]);
}

function next(bitmap: PortBitmap, what: string): number {
  const port = bitmap.allocateNext();
  if (port === undefined) throw internalError(`failed to allocate ${what}: ${RANGE_FULL}`);
  return port;
}

/**
 * The node port of each port of a new Service (undefined: left as it is), as the reference's
 * initNodePorts: ports of one number share the first one asked for among them, or one picked.
 */
function allocateForCreate(
  spec: NodePortSpec,
  name: string,
  bitmap: PortBitmap,
  taken: number[],
): (number | undefined)[] {
  const ports = spec.ports ?? [];
  const byNumber = new Map<number, number>();
  return ports.map((port, i) => {
    const asked = port.nodePort ?? 0;
    if (asked === 0 && !allocatesNodePorts(spec)) return undefined;
    const shared = byNumber.get(port.port ?? 0);
    if (shared === undefined) {
      const requested = ports.find((other) => other.port === port.port && (other.nodePort ?? 0) !== 0)?.nodePort ?? 0;
      let nodePort: number;
      if (requested !== 0) {
        const refused = bitmap.allocate(requested);
        if (refused !== undefined) throw refuse(name, i, requested, refused);
        nodePort = requested;
      } else {
        nodePort = next(bitmap, 'a nodePort');
      }
      taken.push(nodePort);
      byNumber.set(port.port ?? 0, nodePort);
      return nodePort;
    }
    if (asked === 0) return shared;
    if (asked !== shared) {
      const refused = bitmap.allocate(asked);
      if (refused !== undefined) throw refuse(name, i, asked, refused);
      taken.push(asked);
    }
    return asked;
  });
}

/** The health check port asked for, or one picked; the reference answers a refusal with a 500. */
function allocateHealthCheck(spec: NodePortSpec, bitmap: PortBitmap, taken: number[]): number {
  const asked = spec.healthCheckNodePort ?? 0;
  if (asked === 0) {
    const port = bitmap.allocateNext();
    if (port === undefined) throw internalError(`failed to allocate a HealthCheck NodePort 0: ${RANGE_FULL}`);
    taken.push(port);
    return port;
  }
  const refused = bitmap.allocate(asked);
  if (refused !== undefined)
    throw internalError(`failed to allocate requested HealthCheck NodePort ${asked}: ${refused}`);
  taken.push(asked);
  return asked;
}

/** The reference's update of node ports: what the new spec adds is taken, what it drops is given back later. */
function allocateForUpdate(spec: NodePortSpec, oldSpec: NodePortSpec, name: string, bitmap: PortBitmap): PortChange {
  const taken: number[] = [];
  const dropped: number[] = [];
  let nodePorts: (number | undefined)[] = [];
  if (needsNodePort(oldSpec) && !needsNodePort(spec)) dropped.push(...nodePortsOf(oldSpec));
  if (needsNodePort(spec)) {
    const held = nodePortsOf(oldSpec);
    const takenHere = new Set<number>();
    nodePorts = (spec.ports ?? []).map((port, i) => {
      const asked = port.nodePort ?? 0;
      if (asked === 0 && !allocatesNodePorts(spec)) return undefined;
      if (asked === 0) {
        const picked = next(bitmap, 'a nodePort');
        taken.push(picked);
        return picked;
      }
      if (!held.includes(asked) && !takenHere.has(asked)) {
        const refused = bitmap.allocate(asked);
        if (refused !== undefined) throw refuse(name, i, asked, refused);
        taken.push(asked);
        takenHere.add(asked);
      }
      return asked;
    });
    const kept = new Set((spec.ports ?? []).map((port, i) => nodePorts[i] ?? port.nodePort ?? 0));
    dropped.push(...held.filter((port) => !kept.has(port)));
  }
  let healthCheckNodePort: number | undefined;
  if (!needsHealthCheckNodePort(oldSpec) && needsHealthCheckNodePort(spec))
    healthCheckNodePort = allocateHealthCheck(spec, bitmap, taken);
  else if (
    needsHealthCheckNodePort(oldSpec) &&
    !needsHealthCheckNodePort(spec) &&
    (oldSpec.healthCheckNodePort ?? 0) !== 0
  )
    dropped.push(oldSpec.healthCheckNodePort!);
  return { taken, dropped, nodePorts, healthCheckNodePort };
}
