/**
 * The simulated nodes in their own thread: a `NodeHost` (kubelets, leases, node status, pod workers) runs in
 * a worker and reaches the API server of this thread through the components channel, as real kubelets
 * reach kube-apiserver from their machines. This side answers what the cluster asks of its nodes: add and
 * remove nodes, pod logs, shutdown; and it knows the hosted nodes' specs (for the NodePort proxy).
 */
import { Worker } from 'node:worker_threads';
import type { InProcessClient } from '../apiserver/in-process-client.js';
import type { UserInfo } from '../apiserver/registry/policy.js';
import type { NodeHostOptions, NodeHostView } from '../node/agent.js';
import type { SimulatedNodeSpec } from '../node/kubelet/node-status.js';
import { serveClients, type ServeOptions } from './channel.js';

/** The NodeHost options that cross to the worker (data only). */
export type NodeHostThreadOptions = Omit<NodeHostOptions, 'client' | 'clock' | 'catalog' | 'onRegistered' | 'recorderFor' | 'log'>;

export interface NodeHostWorkerData {
  user: UserInfo;
  options: NodeHostThreadOptions;
}

export type NodeHostMethod = 'start' | 'addNodes' | 'removeNodes' | 'logs' | 'shutdown';

/** Main to worker. */
export type NodeHostCall = { t: 'nh-call'; id: number; method: NodeHostMethod; args: unknown[] };

/** Worker to main. */
export type NodeHostNote =
  | { t: 'nh-result'; id: number; value: unknown }
  | { t: 'nh-error'; id: number; message: string }
  | { t: 'nh-registered'; id: number; registered: number; total: number }
  | { t: 'nh-log'; message: string };

function isNote(m: unknown): m is NodeHostNote {
  const t = (m as { t?: unknown } | null)?.t;
  return t === 'nh-result' || t === 'nh-error' || t === 'nh-registered' || t === 'nh-log';
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  onRegistered?: ((registered: number, total: number) => void) | undefined;
}

export class NodeHostThread implements Pick<NodeHostView, 'nodeNames' | 'nodeSpec'> {
  private worker: Worker | undefined;
  private stopServing: (() => void) | undefined;
  private exited: Promise<void> | undefined;
  private nextId = 1;
  /** Shut down: like a stopped NodeHost, later and unfinished calls end quietly. */
  private closing = false;
  private readonly pending = new Map<number, Pending>();
  private readonly specs = new Map<string, SimulatedNodeSpec>();

  constructor(
    private readonly user: UserInfo,
    private readonly options: NodeHostThreadOptions,
    private readonly clientFor: (user: UserInfo) => InProcessClient,
    /** How the node host's calls are served (where their latency is reported). */
    private readonly serve: ServeOptions = {},
    private readonly log: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {
    for (const n of options.nodes) this.specs.set(n.name, n);
  }

  nodeNames(): string[] {
    return [...this.specs.keys()];
  }

  nodeSpec(name: string): SimulatedNodeSpec | undefined {
    return this.specs.get(name);
  }

  /**
   * Starts the thread, not its nodes: the worker loads its modules and builds its nodes while the caller
   * goes on (a cluster starts its control plane meanwhile). `start` spawns it when this was not called.
   */
  spawn(): void {
    if (this.worker !== undefined) return;
    const worker = (this.worker = new Worker(new URL('./node-host-worker.js', import.meta.url), {
      workerData: { user: this.user, options: this.options } satisfies NodeHostWorkerData,
    }));
    const client = this.clientFor(this.user);
    this.stopServing = serveClients(worker, () => client, this.serve);
    this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (m: unknown) => this.receive(m));
    worker.on('error', (e) => this.log(`node host thread failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
    worker.once('exit', (code) => {
      for (const p of this.pending.values()) {
        if (this.closing) p.resolve(undefined);
        else p.reject(new Error(`the node host thread exited with code ${code}`));
      }
      this.pending.clear();
    });
  }

  /** Starts the thread, if `spawn` did not, and its nodes (`NodeHost.start`: registration, heartbeats, pod watch). */
  async start(onRegistered?: (registered: number, total: number) => void): Promise<void> {
    this.spawn();
    await this.call('start', [], onRegistered);
  }

  /** `NodeHost.addNodes`. */
  async addNodes(specs: readonly SimulatedNodeSpec[], onRegistered?: (registered: number, total: number) => void): Promise<void> {
    await this.call('addNodes', [specs], onRegistered);
    for (const n of specs) this.specs.set(n.name, n);
  }

  /** `NodeHost.removeNodes`. */
  async removeNodes(names: readonly string[]): Promise<void> {
    await this.call('removeNodes', [names]);
    for (const n of names) this.specs.delete(n);
  }

  /** `NodeHost.logs`: `kubectl logs` of a hosted pod, or undefined. */
  async logs(namespace: string, pod: string, container: string | undefined, opts: { tailLines?: number; previous?: boolean; timestamps?: boolean } = {}): Promise<string | undefined> {
    return (await this.call('logs', [namespace, pod, container ?? null, opts])) as string | undefined;
  }

  /** `NodeHost.shutdown` (heartbeats stop, queued events are written), then the thread ends. */
  async shutdown(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.closing = true;
    try {
      await this.call('shutdown', []);
    } catch (e) {
      this.log(`node host shutdown: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.worker = undefined;
    this.stopServing?.();
    await worker.terminate();
    await this.exited;
  }

  private call(method: NodeHostMethod, args: unknown[], onRegistered?: (registered: number, total: number) => void): Promise<unknown> {
    const worker = this.worker;
    if (worker === undefined) return this.closing ? Promise.resolve(undefined) : Promise.reject(new Error('the node host thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onRegistered });
      worker.postMessage({ t: 'nh-call', id, method, args } satisfies NodeHostCall);
    });
  }

  private receive(m: unknown): void {
    if (!isNote(m)) return;
    if (m.t === 'nh-log') {
      this.log(m.message);
      return;
    }
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    if (m.t === 'nh-registered') {
      p.onRegistered?.(m.registered, m.total);
      return;
    }
    this.pending.delete(m.id);
    if (m.t === 'nh-result') p.resolve(m.value);
    else p.reject(new Error(m.message));
  }
}
