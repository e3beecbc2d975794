/**
 * ServiceAccountsController (`pkg/controller/serviceaccount/serviceaccounts_controller.go`): every active
 * namespace gets the `default` ServiceAccount, recreated if deleted. Pods need it: the ServiceAccount
 * admission plugin refuses pods whose service account does not exist.
 */
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';

export const defaultServiceAccountName = 'default';

export class ServiceAccountsController implements Controller {
  readonly name = names.ServiceAccount;
  private readonly queue;
  private readonly namespaces;
  private readonly serviceAccounts;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.namespaces = ctx.informer<Namespace>(resources.namespaces);
    this.serviceAccounts = ctx.informer<ServiceAccount>(resources.serviceaccounts);
  }

  start(): void {
    this.namespaces.addHandlers({
      onAdd: (ns) => this.queue.add(ns.metadata?.name ?? ''),
      onUpdate: (_, ns) => this.queue.add(ns.metadata?.name ?? ''),
    });
    this.serviceAccounts.addHandlers({
      onDelete: (sa) => {
        if (sa.metadata?.name === defaultServiceAccountName) this.queue.add(sa.metadata.namespace ?? '');
      },
    });
    void runWorkers(this.queue, (ns) => this.sync(ns), 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** Creates the namespace's `default` service account if it is missing and the namespace is active. */
  async sync(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (ns === undefined || ns.status?.phase !== 'Active' || ns.metadata?.deletionTimestamp !== undefined) return;
    if (this.serviceAccounts.get(`${namespace}/${defaultServiceAccountName}`) !== undefined) return;
    try {
      await this.ctx.client.create<ServiceAccount>(resources.serviceaccounts, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: defaultServiceAccountName, namespace },
      });
    } catch (e) {
      // Already there (the cache lags), or the namespace is going away: nothing to do.
      if (isAlreadyExists(e) || isNotFound(e)) return;
      if (e instanceof Error && /is being terminated/.test(e.message)) return;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new ServiceAccountsController(ctx);
}
