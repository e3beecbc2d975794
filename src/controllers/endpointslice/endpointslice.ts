/**
 * The EndpointSlice controller (pkg/controller/endpointslice, staging endpointslice reconciler; v1.32):
 * EndpointSlices `<service>-<5 chars>` owned by each Service with a selector, labelled
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`,
 * one slice per distinct port mapping (at most 100 endpoints each), endpoints with ready/serving/terminating
 * conditions, nodeName, zone, hostname and targetRef. A Service with no endpoints keeps one empty
 * placeholder slice.
 */
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex, objectKey, runWorkers, splitKey, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { findPort, isHeadless, isPodReady, podHostname, podIPForService, selectedPods, shouldPodBeInEndpoints } from '../_endpoints.js';
import { newControllerRef } from '../_owner.js';
import { names } from '../names.js';

export const LabelServiceName = 'kubernetes.io/service-name';
export const LabelManagedBy = 'endpointslice.kubernetes.io/managed-by';
export const ControllerName = 'endpointslice-controller.k8s.io';
export const IsHeadlessService = 'service.kubernetes.io/headless';
export const maxEndpointsPerSlice = 100;

/** `podToEndpoint`. */
export function podToEndpoint(pod: Pod, node: Node | undefined, svc: Service): Endpoint | undefined {
  const ip = podIPForService(pod, svc);
  if (ip === undefined) return undefined;
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp !== undefined;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: [ip],
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
  };
  if ((pod.spec?.nodeName ?? '') !== '') ep.nodeName = pod.spec?.nodeName ?? '';
  const zone = node?.metadata?.labels?.['topology.kubernetes.io/zone'];
  if (zone !== undefined && zone !== '') ep.zone = zone;
  const h = podHostname(pod, svc);
  if (h !== undefined) ep.hostname = h;
  return ep;
}

/** The endpoint ports of a pod for a Service (`getEndpointPorts`); ports whose target cannot be found are left out. */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const p: EndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out;
}

/** The desired slices' content: endpoints grouped by port mapping, sorted, chunked by 100. */
export function desiredSlices(svc: Service, pods: readonly Pod[], nodes: ReadonlyMap<string, Node>): { ports: EndpointPort[]; endpoints: Endpoint[] }[] {
  const groups = new Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>();
  for (const pod of selectedPods(svc, pods)) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ep = podToEndpoint(pod, nodes.get(pod.spec?.nodeName ?? ''), svc);
    if (ep === undefined) continue;
    const ports = endpointPorts(svc, pod);
    const k = JSON.stringify(ports);
    let g = groups.get(k);
    if (g === undefined) {
      g = { ports, endpoints: [] };
      groups.set(k, g);
    }
    g.endpoints.push(ep);
  }
  const out: { ports: EndpointPort[]; endpoints: Endpoint[] }[] = [];
  for (const g of groups.values()) {
    g.endpoints.sort((a, b) => (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? ''));
    for (let i = 0; i < g.endpoints.length; i += maxEndpointsPerSlice) out.push({ ports: g.ports, endpoints: g.endpoints.slice(i, i + maxEndpointsPerSlice) });
  }
  return out;
}

export class EndpointSliceController implements Controller {
  readonly name = names.EndpointSlice;
  private readonly queue: WorkQueue<string>;
  private readonly svcInformer: Informer<Service>;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly sliceInformer: Informer<EndpointSlice>;
  /**
   * Writes not yet seen by the slice informer (`EndpointSliceTracker`): the object written, or null for a
   * deletion. Keeps a sync that runs before the watch catches up from creating a second slice.
   */
  private readonly pending = new Map<string, EndpointSlice | null>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.svcInformer = ctx.informer<Service>(resources.services);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.nodeInformer = ctx.informer<Node>(resources.nodes);
    this.sliceInformer = ctx.informer<EndpointSlice>(resources.endpointslices);
  }

  start(): void {
    this.svcInformer.addHandlers({
      onAdd: (s) => this.queue.add(objectKey(s)),
      onUpdate: (_o, s) => this.queue.add(objectKey(s)),
      onDelete: (s) => this.queue.add(objectKey(s)),
    });
    const onPod = (p: Pod): void => {
      for (const s of this.svcInformer.list()) {
        if (s.spec?.selector !== undefined && selectedPods(s, [p]).length > 0) this.queue.add(objectKey(s));
      }
    };
    this.podInformer.addHandlers({ onAdd: onPod, onUpdate: (o, p) => (onPod(o), onPod(p)), onDelete: onPod });
    this.nodeInformer.addHandlers({});
    const seen = (s: EndpointSlice): void => {
      const p = this.pending.get(objectKey(s));
      if (p !== undefined && p !== null && p.metadata?.resourceVersion === s.metadata?.resourceVersion) this.pending.delete(objectKey(s));
    };
    this.sliceInformer.addHandlers({
      onAdd: seen,
      onUpdate: (_o, s) => seen(s),
      onDelete: (s) => {
        if (this.pending.get(objectKey(s)) === null) this.pending.delete(objectKey(s));
        const svc = s.metadata?.labels?.[LabelServiceName];
        if (svc !== undefined && s.metadata?.labels?.[LabelManagedBy] === ControllerName) this.queue.add(`${s.metadata?.namespace ?? ''}/${svc}`);
      },
    });
    void runWorkers(this.queue, (k) => this.sync(k), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private ownedSlices(namespace: string, name: string): EndpointSlice[] {
    const byKey = new Map(this.sliceInformer.byIndex(NamespaceIndex, namespace).map((s) => [objectKey(s), s]));
    for (const [k, v] of this.pending) {
      if (v === null) byKey.delete(k);
      else byKey.set(k, v);
    }
    return [...byKey.values()]
      .filter((s) => s.metadata?.namespace === namespace && s.metadata.labels?.[LabelServiceName] === name && s.metadata.labels[LabelManagedBy] === ControllerName)
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  }

  /** `syncService` + `reconcile`. */
  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.svcInformer.get(key);
    const existing = this.ownedSlices(namespace, name);
    if (svc === undefined || svc.spec?.selector === undefined || svc.spec.type === 'ExternalName') {
      // Slices of a deleted Service go with it through the garbage collector (ownerReferences); those of a
      // Service that lost its selector are deleted here.
      if (svc !== undefined) for (const s of existing) await this.deleteSlice(s);
      return;
    }
    const nodes = new Map(this.nodeInformer.list().map((n) => [n.metadata?.name ?? '', n]));
    let desired = desiredSlices(svc, this.podInformer.byIndex(NamespaceIndex, namespace), nodes);
    if (desired.length === 0) desired = [{ ports: [], endpoints: [] }];
    const addressType = (svc.spec.ipFamilies?.[0] ?? 'IPv4') === 'IPv6' ? 'IPv6' : 'IPv4';
    const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}), [LabelServiceName]: name, [LabelManagedBy]: ControllerName };
    if (isHeadless(svc)) labels[IsHeadlessService] = '';
    const unused = [...existing];
    for (const d of desired) {
      const i = unused.findIndex((s) => semanticEqual(s.ports ?? [], d.ports) && s.addressType === addressType);
      const body: EndpointSlice = {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { generateName: `${name}-`, namespace, labels, ownerReferences: [newControllerRef(svc, 'v1', 'Service')] },
        addressType,
        endpoints: d.endpoints,
        ports: d.ports,
      };
      if (i >= 0) {
        const cur = unused.splice(i, 1)[0] as EndpointSlice;
        if (semanticEqual(cur.endpoints ?? [], d.endpoints) && semanticEqual(cur.metadata?.labels ?? {}, labels)) continue;
        const updated = await this.ctx.client.update(resources.endpointslices, { ...body, metadata: { ...(cur.metadata ?? {}), labels } }, { namespace });
        this.pending.set(objectKey(updated), updated);
      } else {
        const created = await this.ctx.client.create(resources.endpointslices, body, { namespace });
        this.pending.set(objectKey(created), created);
      }
    }
    for (const s of unused) await this.deleteSlice(s);
  }

  private async deleteSlice(s: EndpointSlice): Promise<void> {
    try {
      await this.ctx.client.delete(resources.endpointslices, s.metadata?.name ?? '', { namespace: s.metadata?.namespace ?? 'default' });
      this.pending.set(objectKey(s), null);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      this.pending.delete(objectKey(s));
    }
  }
}

export function create(ctx: ControllerContext): EndpointSliceController {
  return new EndpointSliceController(ctx);
}
