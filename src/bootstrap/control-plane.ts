/**
 * The control plane of `kubemix init` (kubeadm's flow): API server (HTTPS, Node+RBAC, bootstrap tokens,
 * anonymous auth for cluster-info), controller manager (with the CSR signer, token cleaner and bootstrap
 * signer), scheduler, and the control-plane node itself (label and `node-role.kubernetes.io/control-plane:
 * NoSchedule` taint) acting as `system:node:<name>`. kube-proxy and CoreDNS are installed; the pod network
 * is left to the user, so nodes stay NotReady and CoreDNS Pending until a CNI DaemonSet runs.
 */
import { mkdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Backend } from '../storage/backend.js';
import { serveApi, type StoreChoice } from './serve.js';
import { ensurePki, caCertHash, type ClusterPki } from './pki.js';
import type { ApiServer } from '../apiserver/server.js';
import { InProcessClient } from '../apiserver/in-process-client.js';
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client, KubeObject } from '../client/client.js';
import { controlPlaneComponents, type ComponentsWorker } from '../components/components.js';
import { NodeHost, coreDNSManifests, kubeProxyManifests } from '../node/index.js';
import { ensureObjects } from '../local/local-cluster.js';
import type { NodeSpec } from '../cluster/index.js';
import { clusterInfoConfigMap, clusterInfoRbac } from './cluster-info.js';
import { kubeadmBootstrapClusterRoleBindings, kubeadmBootstrapClusterRoles } from './kubeadm-rbac.js';
import { formatToken, generateToken, tokenSecret, type BootstrapToken } from './token.js';
import { nodeSpecs } from './node-spec.js';

const controlPlaneLabelKeys = ['node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'];

/** The node as its kubelet registers it: without the role labels kubeadm adds afterwards. */
function registeredAs(node: NodeSpec): NodeSpec {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(node.labels)) if (!controlPlaneLabelKeys.includes(k)) labels[k] = v;
  return { ...node, labels };
}

export interface ControlPlaneOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  nodeName: string;
  advertiseAddress?: string;
  podNetworkCIDR?: string;
  serviceCIDR?: string;
  store?: StoreChoice;
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  leaseRenewIntervalMs?: number;
  nodeStatusUpdateFrequencyMs?: number;
  log?: (message: string) => void;
}

export class ControlPlane {
  private backend: Backend | undefined;
  private server: ApiServer | undefined;
  private components: ComponentsWorker | undefined;
  private nodeHost: NodeHost | undefined;
  private pki: ClusterPki | undefined;
  readonly node: NodeSpec;

  constructor(private readonly o: ControlPlaneOptions) {
    const node = nodeSpecs({ names: [o.nodeName], controlPlane: true })[0];
    if (node === undefined) throw new Error('no control-plane node');
    this.node = node;
  }

  private log(message: string): void {
    (this.o.log ?? ((m: string) => process.stderr.write(`${m}\n`)))(message);
  }

  get kubeconfigPath(): string {
    return `${this.o.dataDir}/admin.conf`;
  }

  url(): string {
    if (this.server === undefined) throw new Error('control plane not started');
    return this.server.url();
  }

  /** `sha256:<hex>` of the cluster CA's public key (the join command's discovery hash). */
  caCertHash(): string {
    if (this.pki === undefined) throw new Error('control plane not started');
    return caCertHash(this.pki.ca.certPem);
  }

  adminClient(): Client {
    if (this.server === undefined) throw new Error('control plane not started');
    return new InProcessClient(this.server, { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
  }

  async start(): Promise<void> {
    await mkdir(this.o.dataDir, { recursive: true, mode: 0o700 });
    const pki = (this.pki = await ensurePki(this.o.dataDir, this.o.advertiseAddress !== undefined ? { advertiseAddresses: [this.o.advertiseAddress] } : {}));
    const { backend, server } = await serveApi({
      dataDir: this.o.dataDir,
      store: this.o.store,
      pki,
      server: {
        port: this.o.port,
        host: this.o.host ?? '127.0.0.1',
        anonymousAuth: true,
        ...(this.o.serviceCIDR !== undefined ? { serviceCIDR: this.o.serviceCIDR } : {}),
        logs: { logs: async (ns, pod, container, opts) => this.nodeHost?.podLogs(ns, pod, container, opts.previous === true)?.join('\n').concat('\n') },
      },
      kubeconfig: { path: this.kubeconfigPath, clusterName: 'kubernetes', contextName: 'kubernetes-admin@kubernetes' },
    });
    this.backend = backend;
    this.server = server;
    const admin = this.adminClient();
    await this.installKubeadmObjects(admin, server.url(), pki.ca.certPem);
    this.components = controlPlaneComponents({
      server,
      pki,
      nodeMonitorGracePeriodMs: this.o.nodeMonitorGracePeriodMs,
      nodeStartupGracePeriodMs: this.o.nodeStartupGracePeriodMs,
      log: (m) => this.log(m),
    });
    await this.components.start();
    const addonOpts = this.o.podNetworkCIDR !== undefined ? { podNetworkCIDR: this.o.podNetworkCIDR } : {};
    await this.createAll(admin, [...kubeProxyManifests(addonOpts), ...coreDNSManifests(addonOpts)]);
    const nodeClient = new InProcessClient(server, { user: { username: `system:node:${this.node.name}`, groups: ['system:nodes', 'system:authenticated'] } });
    this.nodeHost = new NodeHost({
      client: nodeClient,
      nodes: [registeredAs(this.node)],
      cni: 'daemonset',
      ...(this.o.leaseRenewIntervalMs !== undefined ? { leaseRenewIntervalMs: this.o.leaseRenewIntervalMs } : {}),
      ...(this.o.nodeStatusUpdateFrequencyMs !== undefined ? { nodeStatusUpdateFrequencyMs: this.o.nodeStatusUpdateFrequencyMs } : {}),
    });
    await this.nodeHost.start();
    await this.markControlPlane(admin);
    await this.createMirrorPods(nodeClient, server.url());
  }

  /**
   * The control-plane components as the kubelet shows static pods: mirror pods `<component>-<node>` in
   * kube-system, created with the node's own credentials (NodeRestriction allows mirror pods bound to it).
   * kubemix runs the components in this process; the pods make them visible as on a kubeadm cluster.
   */
  private async createMirrorPods(nodeClient: Client, url: string): Promise<void> {
    const node = await nodeClient.get<Node>(resources.nodes, this.node.name);
    const port = new URL(url).port;
    for (const component of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      const pod: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${component}-${this.node.name}`,
          namespace: 'kube-system',
          labels: { component, tier: 'control-plane' },
          annotations: {
            'kubernetes.io/config.mirror': createHash('md5').update(component).digest('hex'),
            'kubernetes.io/config.source': 'file',
            ...(component === 'kube-apiserver' ? { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${this.node.internalIP}:${port}` } : {}),
          },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.node.name, uid: node.metadata?.uid ?? '', controller: true }],
        },
        spec: {
          nodeName: this.node.name,
          hostNetwork: true,
          priorityClassName: 'system-node-critical',
          priority: 2000001000,
          tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
          containers: [{ name: component, image: `registry.k8s.io/${component}:v1.32.0`, command: [component] }],
        },
      };
      try {
        await nodeClient.create(resources.pods, pod);
      } catch (e) {
        if (!isAlreadyExists(e)) this.log(`kubelet: creating mirror pod ${pod.metadata?.name ?? ''}: ${e instanceof Error ? e.message : 'failed'}`);
      }
    }
  }

  /**
   * kubeadm's mark-control-plane phase: the kubelet may not set `node-role.kubernetes.io/*` labels itself
   * (NodeRestriction), so the admin adds them once the node has registered.
   */
  private async markControlPlane(admin: Client): Promise<void> {
    const labels: Record<string, string> = {};
    for (const k of controlPlaneLabelKeys) labels[k] = this.node.labels[k] ?? '';
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.patch(resources.nodes, this.node.name, 'merge', { metadata: { labels } });
        return;
      } catch (e) {
        if (!isNotFound(e) || attempt > 100) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** A new bootstrap token Secret (kubeadm's default usages and group). `ttlMs` 0: never expires. */
  async createToken(opts: { ttlMs?: number; description?: string } = {}): Promise<string> {
    const token: BootstrapToken = generateToken();
    await this.adminClient().create(resources.secrets, tokenSecret({ token, ...opts }));
    return formatToken(token);
  }

  /** cluster-info and its anonymous RBAC, and the TLS bootstrap bindings (kubeadm's bootstrap-token phase). */
  private async installKubeadmObjects(client: Client, url: string, caPem: string): Promise<void> {
    const { role, binding } = clusterInfoRbac();
    await this.createAll(client, [clusterInfoConfigMap(url, caPem), role, binding, ...kubeadmBootstrapClusterRoles(), ...kubeadmBootstrapClusterRoleBindings()]);
  }

  private async createAll(client: Client, objs: KubeObject[]): Promise<void> {
    if (this.server !== undefined) await ensureObjects(this.server, client, objs);
  }

  /** Stops every component in reverse order, then the server and the store. Idempotent. */
  async stop(): Promise<void> {
    this.nodeHost?.stop();
    this.nodeHost = undefined;
    await this.components?.stop();
    this.components = undefined;
    await this.server?.stop();
    this.server = undefined;
    await this.backend?.close();
    this.backend = undefined;
  }
}
