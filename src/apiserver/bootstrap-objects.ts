/**
 * The objects every cluster has, as kube-apiserver's bootstrap controllers create them when it starts (see
 * `ensureBootstrapObjects`); the server calls it once it serves.
 */
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import type { FlowSchema } from 'kubernetes-types/flowcontrol/v1.js';
import type { ResourceDef, ResourceTable } from './discovery/resource-defs.js';
import { rfc3339, type RequestContext, type Store } from './registry/store.js';
import type { StoredObject } from './storage/watch-cache.js';
import {
  bootstrapFlowSchemas,
  bootstrapPriorityLevelConfigurations,
  configConsumerFieldManager,
  configProducerFieldManager,
  danglingCondition,
} from './flowcontrol-bootstrap.js';
import { localAPIService, localAvailableCondition } from './local-apiservices.js';
import { ensureStatusCondition } from './registry/status-conditions.js';

/** What the bootstrap writes through, and the facts of the server it writes for. */
export interface BootstrapTarget {
  table: ResourceTable;
  store: Store;
  /** Who writes them (the server's own identity). */
  context: RequestContext;
  /** The server's address and port: the `kubernetes` Service's endpoints. */
  address: string;
  port: number;
  /** The first IP of the service CIDR. */
  kubernetesServiceIP: string;
  now(): Date;
}

/**
 * The objects every cluster has (kube-apiserver's bootstrap controllers): namespaces, the `kubernetes`
 * Service, priority classes, the API Priority and Fairness configuration and the local APIServices, with
 * the status their controllers write. Each is looked up first and created only when missing, so a restart
 * neither duplicates nor rewrites them.
 */
export async function ensureBootstrapObjects(o: BootstrapTarget): Promise<void> {
  const ns = o.table.get('', 'v1', 'namespaces');
  const pc = o.table.get('scheduling.k8s.io', 'v1', 'priorityclasses');
  const ctx = o.context;
  /** The object as stored, found or created; undefined when the resource is not served. */
  const create = async (def: ResourceDef | undefined, namespace: string, obj: Record<string, unknown>, writer = ctx): Promise<StoredObject | undefined> => {
    if (def === undefined) return undefined;
    // Look first, as kube-apiserver's bootstrap controller does: a create would run allocations
    // (the `kubernetes` Service's cluster IP) before finding the object already there.
    const name = (obj['metadata'] as { name?: string } | undefined)?.name ?? '';
    try {
      return await o.store.get(def, namespace, name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    try {
      return await o.store.create(def, namespace, obj, writer);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return await o.store.get(def, namespace, name);
    }
  };
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    await create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] } });
  }
  // The `kubernetes` Service and its endpoints (kube-apiserver's bootstrap controller).
  const port = o.port;
  await create(o.table.get('', 'v1', 'services'), 'default', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP: o.kubernetesServiceIP ?? '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }], sessionAffinity: 'None' },
  });
  await create(o.table.get('', 'v1', 'endpoints'), 'default', {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: o.address }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  });
  await create(pc, '', {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2000001000,
    description: 'Used for system critical pods that must not be moved from their current node.',
    preemptionPolicy: 'PreemptLowerPriority',
  });
  await create(pc, '', {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2000000000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    preemptionPolicy: 'PreemptLowerPriority',
  });
  const now = rfc3339(o.now());
  // API Priority and Fairness: the configuration producer's objects, then the Dangling condition the
  // configuration consumer gives each FlowSchema.
  const plcDef = o.table.get('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations');
  const fsDef = o.table.get('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas');
  const producer: RequestContext = { ...ctx, fieldManager: configProducerFieldManager };
  const levels = new Set<string>();
  for (const plc of bootstrapPriorityLevelConfigurations) {
    if ((await create(plcDef, '', structuredClone(plc) as StoredObject, producer)) !== undefined) levels.add(plc.metadata?.name ?? '');
  }
  for (const fs of bootstrapFlowSchemas) {
    const stored = (await create(fsDef, '', structuredClone(fs) as StoredObject, producer)) as FlowSchema | undefined;
    if (fsDef === undefined || stored === undefined) continue;
    // A FlowSchema whose spec the user took over (autoupdate-spec "false") may name a level of theirs.
    const plName = stored.spec?.priorityLevelConfiguration.name ?? '';
    if (!levels.has(plName) && plcDef !== undefined) {
      try {
        await o.store.get(plcDef, '', plName);
        levels.add(plName);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    await ensureStatusCondition(o.store, fsDef, stored as StoredObject, danglingCondition(plName, levels.has(plName), now), { ...ctx, fieldManager: configConsumerFieldManager });
  }
  // The autoregister controller's local APIServices, one per built-in group/version served (custom
  // resources' groups get theirs from the CRD registration controller, crd/crd-apiservices), each
  // marked available by the availability controller.
  const svcDef = o.table.get('apiregistration.k8s.io', 'v1', 'apiservices');
  for (const { group, version } of o.table.groupVersions()) {
    // Custom resources' group/versions are not in kube-apiserver's priority table: they get none here.
    const svc = localAPIService(group, version);
    if (svc === undefined) continue;
    const stored = await create(svcDef, '', svc as unknown as StoredObject);
    if (svcDef !== undefined && stored !== undefined) await ensureStatusCondition(o.store, svcDef, stored, localAvailableCondition(now), ctx);
  }
}
