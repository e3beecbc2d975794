/**
 * RootCACertPublisher (`pkg/controller/certificates/rootcacertpublisher`): every active namespace gets
 * the `kube-root-ca.crt` ConfigMap holding the cluster CA (`ca.crt`), annotated with
 * `kubernetes.io/description`, and it is put back when deleted or changed.
 */
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';

export const rootCAConfigMapName = 'kube-root-ca.crt';
const description =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export class RootCACertPublisher implements Controller {
  readonly name = names.RootCACertPublisher;
  private readonly queue;
  private readonly namespaces;
  private readonly configMaps;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly caPem: string,
  ) {
    this.queue = ctx.newQueue();
    this.namespaces = ctx.informer<Namespace>(resources.namespaces);
    this.configMaps = ctx.informer<ConfigMap>(resources.configmaps);
  }

  start(): void {
    this.namespaces.addHandlers({
      onAdd: (ns) => this.queue.add(ns.metadata?.name ?? ''),
      onUpdate: (_, ns) => this.queue.add(ns.metadata?.name ?? ''),
    });
    const onConfigMap = (cm: ConfigMap): void => {
      if (cm.metadata?.name === rootCAConfigMapName) this.queue.add(cm.metadata.namespace ?? '');
    };
    this.configMaps.addHandlers({ onDelete: onConfigMap, onUpdate: (_, cm) => onConfigMap(cm) });
    void runWorkers(this.queue, (ns) => this.sync(ns), 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  async sync(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (ns === undefined || ns.status?.phase !== 'Active' || ns.metadata?.deletionTimestamp !== undefined) return;
    const existing = this.configMaps.get(`${namespace}/${rootCAConfigMapName}`);
    const data = { 'ca.crt': this.caPem };
    if (existing !== undefined) {
      if (existing.data?.['ca.crt'] === this.caPem && existing.metadata?.annotations?.['kubernetes.io/description'] === description) return;
      await this.ctx.client.update<ConfigMap>(resources.configmaps, {
        ...existing,
        metadata: { ...existing.metadata, annotations: { ...(existing.metadata?.annotations ?? {}), 'kubernetes.io/description': description } },
        data,
      });
      return;
    }
    try {
      await this.ctx.client.create<ConfigMap>(resources.configmaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: rootCAConfigMapName, namespace, annotations: { 'kubernetes.io/description': description } },
        data,
      });
    } catch (e) {
      if (isAlreadyExists(e) || isNotFound(e)) return;
      if (e instanceof Error && /is being terminated/.test(e.message)) return;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext, caPem: string): Controller {
  return new RootCACertPublisher(ctx, caPem);
}
