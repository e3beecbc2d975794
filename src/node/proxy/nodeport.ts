/**
 * kube-proxy's NodePort, simulated: every hosted node serves every NodePort (and LoadBalancer) Service port
 * on its own InternalIP (a 127.x.y.z address: Linux routes all of 127/8 to loopback, so the nodes' ports
 * listen side by side). A request goes to a ready endpoint of the Service (EndpointSlices, else Endpoints),
 * round-robin; `externalTrafficPolicy: Local` keeps to endpoints on the receiving node. With no endpoint the
 * connection is dropped, as kube-proxy's reject rule does. The "container" answers with who served it.
 *
 * Off above `maxNodes` hosted nodes (default 100): thousands of listeners help nobody.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Endpoints, Node, Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { resources } from '../../api/resources.js';
import type { Client } from '../../client/client.js';
import { createInformer, realClock, type Clock, type Informer } from '../../client/index.js';
import type { NodeHostView } from '../agent.js';

export interface NodePortProxyOptions {
  client: Client;
  /** The nodes to serve: their names and InternalIPs. */
  nodes: Pick<NodeHostView, 'nodeNames' | 'nodeSpec'>;
  clock?: Clock;
  /** Serve nothing when more nodes are hosted (default 100). */
  maxNodes?: number;
  log?: (message: string, err?: unknown) => void;
}

export interface Backend {
  readonly ip: string;
  readonly port: number;
  readonly nodeName?: string;
  readonly pod?: { readonly namespace: string; readonly name: string };
}

const serviceNameLabel = 'kubernetes.io/service-name';

/** Ready endpoints of `svc` for `port` from EndpointSlices (preferred) or the Endpoints object. */
export function readyBackends(svc: Service, port: ServicePort, slices: readonly EndpointSlice[], endpoints: Endpoints | undefined): Backend[] {
  const out: Backend[] = [];
  const portName = port.name ?? '';
  if (slices.length > 0) {
    for (const s of slices) {
      if (s.addressType !== undefined && s.addressType !== 'IPv4') continue;
      const p = (s.ports ?? []).find((x) => (x.name ?? '') === portName && (x.protocol ?? 'TCP') === (port.protocol ?? 'TCP'));
      if (p?.port === undefined || p.port === null) continue;
      for (const e of s.endpoints ?? []) {
        if (e.conditions?.ready === false) continue;
        const ip = e.addresses[0];
        if (ip === undefined) continue;
        out.push({
          ip,
          port: p.port,
          ...(e.nodeName !== undefined ? { nodeName: e.nodeName } : {}),
          ...(e.targetRef?.kind === 'Pod' && e.targetRef.name !== undefined ? { pod: { namespace: e.targetRef.namespace ?? svc.metadata?.namespace ?? '', name: e.targetRef.name } } : {}),
        });
      }
    }
    return out;
  }
  for (const subset of endpoints?.subsets ?? []) {
    const p = (subset.ports ?? []).find((x) => (x.name ?? '') === portName);
    if (p === undefined) continue;
    for (const a of subset.addresses ?? []) {
      out.push({
        ip: a.ip,
        port: p.port,
        ...(a.nodeName !== undefined ? { nodeName: a.nodeName } : {}),
        ...(a.targetRef?.kind === 'Pod' && a.targetRef.name !== undefined ? { pod: { namespace: a.targetRef.namespace ?? '', name: a.targetRef.name } } : {}),
      });
    }
  }
  return out;
}

interface Listener {
  server: Server;
  key: string;
}

export class NodePortProxy {
  private readonly clock: Clock;
  private readonly log: (message: string, err?: unknown) => void;
  private services: Informer<Service> | undefined;
  private slices: Informer<EndpointSlice> | undefined;
  private endpoints: Informer<Endpoints> | undefined;
  private pods: Informer<Pod> | undefined;
  private nodeObjects: Informer<Node> | undefined;
  private readonly listeners = new Map<string, Listener>();
  private readonly rr = new Map<string, number>();
  private reconcileQueued = false;
  private running = false;

  constructor(private readonly opts: NodePortProxyOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log ?? ((m, e) => console.error(`kube-proxy: ${m}`, e ?? ''));
  }

  /** True when the proxy serves (hosted nodes at most `maxNodes`). */
  get enabled(): boolean {
    return this.opts.nodes.nodeNames().length <= (this.opts.maxNodes ?? 100);
  }

  async start(): Promise<void> {
    if (this.running || !this.enabled) return;
    this.running = true;
    const common = { clock: this.clock, log: this.log };
    this.services = createInformer<Service>(this.opts.client, resources.services, common);
    this.slices = createInformer<EndpointSlice>(this.opts.client, resources.endpointslices, {
      ...common,
      indexers: { service: (s) => [`${s.metadata?.namespace ?? ''}/${s.metadata?.labels?.[serviceNameLabel] ?? ''}`] },
    });
    this.endpoints = createInformer<Endpoints>(this.opts.client, resources.endpoints, common);
    this.pods = createInformer<Pod>(this.opts.client, resources.pods, common);
    this.nodeObjects = createInformer<Node>(this.opts.client, resources.nodes, common);
    const queue = { onAdd: () => this.queueReconcile(), onUpdate: () => this.queueReconcile(), onDelete: () => this.queueReconcile() };
    this.services.addHandlers(queue);
    for (const inf of [this.services, this.slices, this.endpoints, this.pods, this.nodeObjects]) inf.start();
    await Promise.all([this.services.waitForSync(), this.slices.waitForSync(), this.endpoints.waitForSync()]);
    await this.reconcile();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const inf of [this.services, this.slices, this.endpoints, this.pods, this.nodeObjects]) inf?.stop();
    await Promise.all([...this.listeners.values()].map((l) => closeServer(l.server)));
    this.listeners.clear();
  }

  /** Addresses currently served, `ip:port` (tests, diagnostics). */
  serving(): string[] {
    return [...this.listeners.keys()].sort();
  }

  private queueReconcile(): void {
    if (this.reconcileQueued || !this.running) return;
    this.reconcileQueued = true;
    setImmediate(() => {
      this.reconcileQueued = false;
      this.reconcile().catch((err: unknown) => this.log('reconciling node ports failed', err));
    });
  }

  private wanted(): Map<string, { ip: string; nodeName: string; nodePort: number }> {
    const want = new Map<string, { ip: string; nodeName: string; nodePort: number }>();
    const ports = new Set<number>();
    for (const svc of this.services?.list() ?? []) {
      const type = svc.spec?.type;
      if (type !== 'NodePort' && type !== 'LoadBalancer') continue;
      for (const p of svc.spec?.ports ?? []) {
        if (p.nodePort !== undefined && p.nodePort > 0 && (p.protocol ?? 'TCP') === 'TCP') ports.add(p.nodePort);
      }
    }
    for (const nodeName of this.opts.nodes.nodeNames()) {
      const ip = this.opts.nodes.nodeSpec(nodeName)?.internalIP;
      if (ip === undefined) continue;
      for (const nodePort of ports) want.set(`${ip}:${nodePort}`, { ip, nodeName, nodePort });
    }
    return want;
  }

  private async reconcile(): Promise<void> {
    if (!this.running) return;
    const want = this.wanted();
    const closing: Promise<void>[] = [];
    for (const [key, l] of this.listeners) {
      if (!want.has(key)) {
        this.listeners.delete(key);
        closing.push(closeServer(l.server));
      }
    }
    await Promise.all(closing);
    for (const [key, w] of want) {
      if (this.listeners.has(key)) continue;
      const server = createServer((req, res) => this.serve(w.nodeName, w.nodePort, req, res));
      this.listeners.set(key, { server, key });
      server.on('error', (err) => {
        this.log(`cannot listen on ${key}`, err);
        if (this.listeners.get(key)?.server === server) this.listeners.delete(key);
      });
      await new Promise<void>((resolve) => {
        server.once('listening', () => resolve());
        server.once('error', () => resolve());
        server.listen(w.nodePort, w.ip);
      });
    }
  }

  private serve(nodeName: string, nodePort: number, req: IncomingMessage, res: ServerResponse): void {
    const svc = (this.services?.list() ?? []).find((s) => (s.spec?.ports ?? []).some((p) => p.nodePort === nodePort));
    const port = svc?.spec?.ports?.find((p) => p.nodePort === nodePort);
    if (svc === undefined || port === undefined) {
      req.socket.destroy();
      return;
    }
    const ns = svc.metadata?.namespace ?? '';
    const name = svc.metadata?.name ?? '';
    const slices = this.slices?.byIndex('service', `${ns}/${name}`) ?? [];
    let backends = readyBackends(svc, port, slices, this.endpoints?.get(`${ns}/${name}`));
    if (svc.spec?.externalTrafficPolicy === 'Local') backends = backends.filter((b) => b.nodeName === nodeName);
    if (backends.length === 0) {
      req.socket.destroy();
      return;
    }
    const rrKey = `${nodeName}/${ns}/${name}/${nodePort}`;
    // Each node's rotation starts at its own place, so the first requests to different nodes spread out.
    const i = (this.rr.get(rrKey) ?? startOffset(nodeName)) % backends.length;
    this.rr.set(rrKey, i + 1);
    const b = backends[i];
    if (b === undefined) {
      req.socket.destroy();
      return;
    }
    const pod = b.pod !== undefined ? this.pods?.get(`${b.pod.namespace}/${b.pod.name}`) : undefined;
    const podNode = pod?.spec?.nodeName ?? b.nodeName ?? '';
    const nodeSpec = this.opts.nodes.nodeSpec(podNode);
    const nodeObj = this.nodeObjects?.get(podNode);
    const os = nodeSpec?.os ?? nodeObj?.metadata?.labels?.['kubernetes.io/os'] ?? 'unknown';
    const arch = nodeSpec?.arch ?? nodeObj?.metadata?.labels?.['kubernetes.io/arch'] ?? 'unknown';
    const images = (pod?.status?.containerStatuses ?? []).map((c) => c.image).filter((x) => x !== '');
    const image = images.length > 0 ? images.join(', ') : (pod?.spec?.containers ?? []).map((c) => c.image ?? '').join(', ');
    const body = [
      'kubemix simulated container',
      `pod: ${b.pod !== undefined ? `${b.pod.namespace}/${b.pod.name}` : '<none>'} (${b.ip}:${b.port})`,
      `node: ${podNode || '<unknown>'} (${os}/${arch})`,
      `image: ${image || '<unknown>'}`,
      `service: ${ns}/${name} port ${port.port} via node ${nodeName} port ${nodePort}`,
      `request: ${req.method ?? 'GET'} ${req.url ?? '/'}`,
      '',
    ].join('\n');
    req.resume();
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'x-kubemix-pod': b.pod !== undefined ? `${b.pod.namespace}/${b.pod.name}` : '',
      'x-kubemix-node': podNode,
      'x-kubemix-platform': `${os}/${arch}`,
    });
    res.end(body);
  }
}

function startOffset(nodeName: string): number {
  let h = 0;
  for (const ch of nodeName) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

