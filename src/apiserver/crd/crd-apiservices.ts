/**
 * The APIServices of custom resources, as kube-apiserver 1.32 keeps them. Its crdRegistrationController
 * (`pkg/controlplane/controller/crdregistration`) asks, for every group/version some CRD serves, for the
 * APIService `<version>.<group>` with groupPriorityMinimum 1000 and versionPriority 100, the same for every
 * version whatever its place in the CRD's list (versions of equal priority are ordered by kube-aware
 * version, as `compareVersions` orders discovery), and no service. The autoregister controller (`k8s.io/kube-aggregator/pkg/controllers/autoregister`)
 * syncs those continuously: it labels them `kube-aggregator.kubernetes.io/automanaged: "true"`, creates one
 * when missing (again after a user deletes it), puts its spec back when changed, and deletes it once no CRD
 * serves its group/version. APIServices without that label (a user's, the built-in groups' `onstart` ones
 * of the bootstrap) are never touched. Being local, kube-aggregator's availability controller marks each
 * one Available (reason Local).
 *
 * Like upstream's listers, a CRD counts from its creation until it is gone from storage: a CRD being deleted
 * keeps its APIServices until its custom resources are cleaned up.
 */
import { isAlreadyExists, isConflict, isNotFound } from '../../api/errors.js';
import { FieldSelector } from '../../api/fields.js';
import { parseSelector } from '../../api/labels.js';
import type { ResourceDef, ResourceTable } from '../discovery/resource-defs.js';
import { automanagedLabel, localAvailableCondition, type APIService } from '../local-apiservices.js';
import { rfc3339, type RequestContext, type Store } from '../registry/store.js';
import { ensureStatusCondition } from '../registry/status-conditions.js';
import { sharedObject, type StoredObject } from '../storage/watch-cache.js';
import { servedVersions, type CrdSpec } from './crd-registrar.js';

/** `GroupPriorityMinimum` of every custom resource APIService: below every built-in group. */
export const crdGroupPriorityMinimum = 1000;
/** `VersionPriority` of every custom resource APIService. */
export const crdVersionPriority = 100;
/** The automanaged label's value for APIServices synced continuously (`manageContinuously`). */
export const manageContinuously = 'true';

/** The APIServices the CRDs ask for, by name: one per group/version at least one of them serves. */
export function crdAPIServices(crds: Iterable<CrdSpec>): Map<string, APIService> {
  const wanted = new Map<string, APIService>();
  for (const crd of crds) {
    for (const v of servedVersions(crd)) {
      const name = `${v.name}.${crd.group}`;
      if (wanted.has(name)) continue;
      wanted.set(name, {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [automanagedLabel]: manageContinuously } },
        spec: { group: crd.group, version: v.name, groupPriorityMinimum: crdGroupPriorityMinimum, versionPriority: crdVersionPriority },
      });
    }
  }
  return wanted;
}

export type AutoregisterAction = 'create' | 'update' | 'delete' | 'none';

/**
 * The autoregister controller's `checkAPIService` for APIServices synced continuously: what to do with the
 * APIService of one name, given the one wanted (undefined: none) and the one stored (undefined: none).
 * A stored one not labelled `"true"` is left alone, `onstart` ones included: the bootstrap syncs those.
 */
export function autoregisterAction(desired: APIService | undefined, current: APIService | undefined): AutoregisterAction {
  if (current === undefined) return desired === undefined ? 'none' : 'create';
  if (current.metadata?.labels?.[automanagedLabel] !== manageContinuously) return 'none';
  if (desired === undefined) return 'delete';
  return specKey(current.spec) === specKey(desired.spec) ? 'none' : 'update';
}

/** The spec as Go's `reflect.DeepEqual` compares the decoded structs: a field left out equals its zero value. */
function specKey(s: APIService['spec']): string {
  const svc = s?.service;
  return JSON.stringify([
    svc === undefined || svc === null ? null : [svc.namespace ?? '', svc.name ?? '', svc.port ?? 0],
    s?.group ?? '',
    s?.version ?? '',
    s?.insecureSkipTLSVerify ?? false,
    s?.caBundle ?? '',
    s?.groupPriorityMinimum ?? 0,
    s?.versionPriority ?? 0,
  ]);
}

export interface CrdAPIServiceRegistrationOptions {
  table: ResourceTable;
  store: Store;
  /** Who writes them (the server's own identity). */
  context: RequestContext;
  now(): Date;
}

/**
 * Keeps the custom resources' APIServices in line with the CRDs: every change to a CRD or an APIService
 * asks for one sync of the whole set (changes that arrive before it starts share it), as the two upstream
 * controllers' queues, keyed by group/version and by name, together amount to.
 */
export class CrdAPIServiceRegistration {
  private readonly stopWatches: (() => void)[] = [];
  private pending: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(private readonly o: CrdAPIServiceRegistrationOptions) {}

  /** Watches CRDs and APIServices; resolves once the APIServices match the CRDs stored at start. */
  async start(): Promise<void> {
    const crdDef = this.o.table.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    const svcDef = this.o.table.get('apiregistration.k8s.io', 'v1', 'apiservices');
    if (crdDef === undefined || svcDef === undefined) return;
    const sink = { push: (): void => this.enqueue(crdDef, svcDef), close: (): void => undefined };
    for (const def of [crdDef, svcDef]) {
      this.stopWatches.push(await this.o.store.watch(def, { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything() }, sink));
    }
    this.enqueue(crdDef, svcDef);
    await this.pending;
  }

  async stop(): Promise<void> {
    for (const stop of this.stopWatches.splice(0)) stop();
    await this.pending;
  }

  /** Resolves when every change seen so far has been synced. */
  async settled(): Promise<void> {
    await this.pending;
  }

  private enqueue(crdDef: ResourceDef, svcDef: ResourceDef): void {
    if (this.queued) return;
    this.queued = true;
    this.pending = this.pending.then(() => {
      this.queued = false;
      return this.sync(crdDef, svcDef);
    });
  }

  /** One pass over every name wanted or stored; a name that fails is logged and retried on the next change. */
  private async sync(crdDef: ResourceDef, svcDef: ResourceDef): Promise<void> {
    const everything = { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything() };
    try {
      const crds = (await this.o.store.list(crdDef, everything)).items.map((c) => sharedObject(c)['spec'] as CrdSpec | undefined);
      const desired = crdAPIServices(crds.filter((s) => s !== undefined));
      const current = new Map<string, APIService>();
      for (const c of (await this.o.store.list(svcDef, everything)).items) {
        const svc = sharedObject(c) as APIService;
        current.set(svc.metadata?.name ?? '', svc);
      }
      for (const name of new Set([...desired.keys(), ...current.keys()])) {
        await this.syncAPIService(svcDef, desired.get(name), current.get(name)).catch((e: unknown) => console.error(`crd apiservice registration: ${name}:`, e));
      }
    } catch (e) {
      console.error('crd apiservice registration:', e);
    }
  }

  /**
   * Writes what `autoregisterAction` decides, then marks the APIService available. A write that finds the
   * object created, changed or deleted meanwhile is dropped: its watch event brings another sync.
   */
  private async syncAPIService(svcDef: ResourceDef, desired: APIService | undefined, current: APIService | undefined): Promise<void> {
    const ctx = this.o.context;
    const tolerated = (e: unknown): undefined => {
      if (isAlreadyExists(e) || isConflict(e) || isNotFound(e)) return undefined;
      throw e;
    };
    let stored: StoredObject | undefined;
    switch (autoregisterAction(desired, current)) {
      case 'none':
        if (desired !== undefined && current?.metadata?.labels?.[automanagedLabel] === manageContinuously) stored = current as StoredObject;
        break;
      case 'create':
        stored = await this.o.store.create(svcDef, '', structuredClone(desired) as StoredObject, ctx).catch(tolerated);
        break;
      case 'update': {
        const input = { ...structuredClone(current), spec: structuredClone(desired?.spec) } as StoredObject;
        stored = (await this.o.store.update(svcDef, '', input.metadata?.name ?? '', '', input, ctx).catch(tolerated))?.object;
        break;
      }
      case 'delete':
        await this.o.store.delete(svcDef, '', current?.metadata?.name ?? '', { preconditions: { uid: current?.metadata?.uid ?? '' } }, ctx).catch(tolerated);
        return;
    }
    if (stored !== undefined) await ensureStatusCondition(this.o.store, svcDef, stored, localAvailableCondition(rfc3339(this.o.now())), ctx);
  }
}
