/**
 * The control-plane components in their own thread: the controller manager and the scheduler run in a
 * worker (as kube-controller-manager and kube-scheduler run in their own processes) and reach the API server
 * of this thread through `serveClients`, so the API server and the components each have a core.
 */
import { Worker } from 'node:worker_threads';
import type { ControllerOptions } from '../controllers/registry.js';
import type { UserInfo } from '../apiserver/registry/policy.js';
import type { ApiServer } from '../apiserver/server.js';
import type { ClusterPki } from '../bootstrap/pki.js';
import { InProcessClient } from '../apiserver/in-process-client.js';
import { serveClients, type ServeOptions } from './channel.js';

/** The identity a component's in-process client carries (authorized by RBAC's default roles). */
export function componentUser(username: string, groups: string[]): UserInfo {
  return { username, groups: [...groups, 'system:authenticated'] };
}

/** What a control plane (`kubemix up`, `kubemix init`) tells its components. */
export interface ControlPlaneComponentsOptions {
  server: ApiServer;
  /**
   * The cluster CA (the root CA published in every namespace and the signer of kubelet client CSRs) and
   * the service account signing key (`sa.key`: kube-controller-manager's `--service-account-private-key-file`).
   */
  pki: Pick<ClusterPki, 'ca' | 'sa'>;
  nodeMonitorGracePeriodMs?: number | undefined;
  nodeStartupGracePeriodMs?: number | undefined;
  log?: ((message: string) => void) | undefined;
}

/**
 * kube-controller-manager (`--root-ca-file`, `--cluster-signing-cert-file`/`--cluster-signing-key-file`,
 * `--service-account-private-key-file`, the node lifecycle timings) and kube-scheduler as their own users,
 * on the server's in-process clients.
 */
export function controlPlaneComponents(o: ControlPlaneComponentsOptions): ComponentsWorker {
  const components = new ComponentsWorker(
    {
      controllers: {
        rootCAPem: o.pki.ca.certPem,
        clusterSigningCertPem: o.pki.ca.certPem,
        clusterSigningKeyPem: o.pki.ca.keyPem,
        serviceAccountPrivateKeyPem: o.pki.sa.keyPem,
        ...(o.nodeMonitorGracePeriodMs !== undefined ? { nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs } : {}),
        ...(o.nodeStartupGracePeriodMs !== undefined ? { nodeStartupGracePeriodMs: o.nodeStartupGracePeriodMs } : {}),
      },
      controllerManagerUser: componentUser('system:kube-controller-manager', []),
      schedulerUser: componentUser('system:kube-scheduler', []),
    },
    // Objects arrive structured-cloned from the components thread: the server may use them as they are.
    (user) => new InProcessClient(o.server, { user, inputsOwned: true }),
    { latency: o.server.callLatency, flowControl: o.server.flowControl },
    ...(o.log !== undefined ? [o.log] : []),
  );
  // `kubectl get componentstatuses`: both run in the thread, healthy while it runs.
  o.server.componentStatuses.setProbe('scheduler', () => components.running);
  o.server.componentStatuses.setProbe('controller-manager', () => components.running);
  return components;
}

export interface ComponentsConfig {
  /** The controller manager's options (data only: they cross to the worker). */
  controllers: ControllerOptions;
  controllerManagerUser: UserInfo;
  schedulerUser: UserInfo;
}

/** Control messages between the two threads (beside the client channel's). */
export type ControlMessage = { t: 'started' } | { t: 'stop' } | { t: 'stopped' } | { t: 'log'; message: string };

function isLog(m: unknown): m is { t: 'log'; message: string } {
  return (m as ControlMessage | null)?.t === 'log';
}

export class ComponentsWorker {
  private worker: Worker | undefined;
  private stopServing: (() => void) | undefined;
  private exited: Promise<void> | undefined;
  /** Started, and neither stopped nor exited since. */
  private up = false;

  constructor(
    private readonly config: ComponentsConfig,
    /** The in-process client the API server gives each component user. */
    private readonly clientFor: (user: UserInfo) => InProcessClient,
    /** How the components' calls are served (where their latency is reported). */
    private readonly serve: ServeOptions = {},
    /** Where the components' log lines go (default standard error). */
    private readonly log: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {}

  /** Starts the thread; resolves once the components run. */
  async start(): Promise<void> {
    const worker = (this.worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: this.config }));
    const clients = new Map<string, InProcessClient>();
    this.stopServing = serveClients(worker, (user) => {
      const key = JSON.stringify(user);
      let c = clients.get(key);
      if (c === undefined) clients.set(key, (c = this.clientFor(user)));
      return c;
    }, this.serve);
    this.exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        this.up = false;
        resolve();
      }),
    );
    worker.on('error', (e) => this.log(`components thread failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
    worker.on('message', (m: unknown) => {
      if (isLog(m)) this.log(m.message);
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown): void => {
        if ((m as ControlMessage | null)?.t !== 'started') return;
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        this.up = true;
        resolve();
      };
      const onExit = (code: number): void => reject(new Error(`the components thread exited with code ${code} while starting`));
      worker.on('message', onMessage);
      worker.once('exit', onExit);
    });
  }

  /** Whether the components run (the thread started them and has not stopped). */
  get running(): boolean {
    return this.up;
  }

  /** Stops the components (they finish their current work), then the thread. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    this.up = false;
    const stopped = new Promise<void>((resolve) => {
      const onMessage = (m: unknown): void => {
        if ((m as ControlMessage | null)?.t !== 'stopped') return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
    });
    worker.postMessage({ t: 'stop' } satisfies ControlMessage);
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
    await Promise.race([stopped, this.exited, timer]);
    this.stopServing?.();
    await worker.terminate();
    await this.exited;
  }
}
