/**
 * The Endpoints controller (pkg/controller/endpoint/endpoints_controller.go, v1.32): one `Endpoints` object
 * per Service with a selector, named like the Service, listing the selected pods' IPs per resolved target
 * port: ready pods in `addresses`, the others in `notReadyAddresses` (all ready with
 * publishNotReadyAddresses), with nodeName, targetRef and hostname.
 */
import type { EndpointAddress, EndpointPort, Endpoints, EndpointSubset, Pod, Service } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { formatTime } from '../_pods.js';
import { semanticEqual, NamespaceIndex, objectKey, runWorkers, splitKey, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { findPort, isHeadless, isPodReady, podHostname, podIPForService, selectedPods, shouldPodBeInEndpoints } from '../_endpoints.js';
import { names } from '../names.js';

export const LastChangeTriggerTime = 'endpoints.kubernetes.io/last-change-trigger-time';
export const IsHeadlessService = 'service.kubernetes.io/headless';

function addressFor(pod: Pod, svc: Service): EndpointAddress | undefined {
  const ip = podIPForService(pod, svc);
  if (ip === undefined) return undefined;
  const a: EndpointAddress = { ip, targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' } };
  if ((pod.spec?.nodeName ?? '') !== '') a.nodeName = pod.spec?.nodeName ?? '';
  const h = podHostname(pod, svc);
  if (h !== undefined) a.hostname = h;
  return a;
}

function portKey(ports: readonly EndpointPort[]): string {
  return JSON.stringify([...ports].sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port));
}

/**
 * The subsets for a Service (`syncService` + `RepackSubsets`): addresses grouped by identical port lists,
 * addresses sorted by IP, ports by name.
 */
export function computeSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const groups = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  const add = (ports: EndpointPort[], a: EndpointAddress, ready: boolean): void => {
    const k = portKey(ports);
    let g = groups.get(k);
    if (g === undefined) {
      g = { ports: [...ports].sort((x, y) => (x.name ?? '').localeCompare(y.name ?? '') || x.port - y.port), ready: [], notReady: [] };
      groups.set(k, g);
    }
    (ready ? g.ready : g.notReady).push(a);
  };
  for (const pod of selectedPods(svc, pods)) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const a = addressFor(pod, svc);
    if (a === undefined) continue;
    const ready = tolerateUnready || isPodReady(pod);
    const svcPorts = svc.spec?.ports ?? [];
    if (svcPorts.length === 0) {
      if (isHeadless(svc)) add([], a, ready);
      continue;
    }
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      const ep: EndpointPort = { port, protocol: sp.protocol ?? 'TCP' };
      if (sp.name !== undefined && sp.name !== '') ep.name = sp.name;
      if (sp.appProtocol !== undefined) ep.appProtocol = sp.appProtocol;
      add([ep], a, ready);
    }
  }
  // Merge groups of single ports that share the same address sets (RepackSubsets groups addresses by their port sets).
  const byAddr = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  const sortAddrs = (xs: EndpointAddress[]): EndpointAddress[] => {
    const seen = new Map<string, EndpointAddress>();
    for (const x of xs) seen.set(`${x.ip}/${x.targetRef?.uid ?? ''}`, x);
    return [...seen.values()].sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true }) || (a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? ''));
  };
  for (const g of groups.values()) {
    const ready = sortAddrs(g.ready);
    const notReady = sortAddrs(g.notReady);
    const k = JSON.stringify([ready.map((a) => a.ip), notReady.map((a) => a.ip)]);
    const cur = byAddr.get(k);
    if (cur === undefined) byAddr.set(k, { ports: [...g.ports], ready, notReady });
    else cur.ports.push(...g.ports);
  }
  const subsets: EndpointSubset[] = [];
  for (const g of byAddr.values()) {
    const s: EndpointSubset = {};
    if (g.ready.length > 0) s.addresses = g.ready;
    if (g.notReady.length > 0) s.notReadyAddresses = g.notReady;
    if (g.ports.length > 0) s.ports = g.ports.sort((x, y) => (x.name ?? '').localeCompare(y.name ?? '') || x.port - y.port);
    subsets.push(s);
  }
  return subsets.sort((a, b) => JSON.stringify(a.ports ?? []).localeCompare(JSON.stringify(b.ports ?? [])));
}

export class EndpointsController implements Controller {
  readonly name = names.Endpoints;
  private readonly queue: WorkQueue<string>;
  private readonly svcInformer: Informer<Service>;
  private readonly podInformer: Informer<Pod>;
  private readonly epInformer: Informer<Endpoints>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.svcInformer = ctx.informer<Service>(resources.services);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.epInformer = ctx.informer<Endpoints>(resources.endpoints);
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
    this.epInformer.addHandlers({
      onDelete: (e) => {
        if (this.svcInformer.get(objectKey(e)) !== undefined) this.queue.add(objectKey(e));
      },
    });
    void runWorkers(this.queue, (k) => this.sync(k), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `syncService`. */
  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.svcInformer.get(key);
    if (svc === undefined) {
      try {
        await this.ctx.client.delete(resources.endpoints, name, { namespace });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    if (svc.spec?.type === 'ExternalName' || svc.spec?.selector === undefined) return;
    const subsets = computeSubsets(svc, this.podInformer.byIndex(NamespaceIndex, namespace));
    const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
    if (isHeadless(svc)) labels[IsHeadlessService] = '';
    else delete labels[IsHeadlessService];
    const cur = this.epInformer.get(key);
    if (cur !== undefined && semanticEqual(cur.subsets ?? [], subsets) && semanticEqual(cur.metadata?.labels ?? {}, labels)) return;
    const annotations: Record<string, string> = { ...(cur?.metadata?.annotations ?? {}), [LastChangeTriggerTime]: formatTime(this.ctx.clock.now()) };
    const next: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { ...(cur?.metadata ?? {}), name, namespace, labels, annotations },
    };
    if (subsets.length > 0) next.subsets = subsets;
    if (cur === undefined) await this.ctx.client.create(resources.endpoints, next, { namespace });
    else await this.ctx.client.update(resources.endpoints, next, { namespace });
  }
}

export function create(ctx: ControllerContext): EndpointsController {
  return new EndpointsController(ctx);
}
