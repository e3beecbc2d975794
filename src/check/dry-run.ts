/**
 * A create as kube-apiserver performs it, without storage: defaults -> mutating admission -> the registry's
 * PrepareForCreate, name generation and validation -> validating admission (the order of `Store.create`).
 * The admission plugins read what has been accepted so far (input objects and the cluster's own) through
 * an in-memory `AdmissionLookup`.
 */
import type { LimitRange, Namespace, Node, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { apiErrors, isApiError } from '../api/errors.js';
import { fieldErrors } from '../api/field-errors.js';
import { defaultAdmissionChain, runMutating, runValidating, type AdmissionAttributes, type AdmissionChain, type AdmissionLookup } from '../admission/index.js';
import type { KubeObject } from '../client/client.js';
import { ResourceTable, type ResourceDef } from '../apiserver/discovery/resource-defs.js';
import { prepareForCreate } from '../apiserver/registry/strategy.js';
import { applyDefaults, validate } from '../apiserver/validation/index.js';
import type { ClusterView } from './cluster.js';

export type CreateResult = { ok: true; obj: KubeObject } | { ok: false; message: string; reason: string };

const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export interface DryRunApiOptions {
  cluster: ClusterView;
  table?: ResourceTable;
  chain?: AdmissionChain;
}

/** The API server's create path, in memory. Accepted lookup objects are remembered for later admissions. */
export class DryRunApi {
  readonly table: ResourceTable;
  private readonly chain: AdmissionChain;
  private readonly runtimeClasses = new Map<string, RuntimeClass>();
  private readonly priorityClasses = new Map<string, PriorityClass>();
  private readonly namespaces = new Map<string, Namespace>();
  private readonly serviceAccounts = new Map<string, ServiceAccount>();
  private readonly limitRanges: LimitRange[] = [];
  private readonly nodes = new Map<string, Node>();
  private generated = 0;
  private uids = 0;

  constructor(opts: DryRunApiOptions) {
    this.table = opts.table ?? new ResourceTable();
    this.chain = opts.chain ?? defaultAdmissionChain();
    for (const rc of opts.cluster.runtimeClasses) this.runtimeClasses.set(rc.metadata?.name ?? '', rc);
    for (const pc of opts.cluster.priorityClasses) this.priorityClasses.set(pc.metadata?.name ?? '', pc);
    for (const ns of opts.cluster.namespaces) this.namespaces.set(ns.metadata?.name ?? '', ns);
    for (const sa of opts.cluster.serviceAccounts) this.serviceAccounts.set(`${sa.metadata?.namespace ?? ''}/${sa.metadata?.name ?? ''}`, sa);
    for (const n of opts.cluster.nodes) this.nodes.set(n.name, n.node);
  }

  /** The served resource for an apiVersion and kind, if the 1.32 API server serves it. */
  resourceFor(apiVersion: string, kind: string): ResourceDef | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    return this.table.all().find((d) => d.group === group && d.version === version && d.kind === kind);
  }

  /** Whether a RuntimeClass of that name exists (input or cluster). */
  hasRuntimeClass(name: string): boolean {
    return this.runtimeClasses.has(name);
  }

  lookup(): AdmissionLookup {
    return {
      getRuntimeClass: (name) => Promise.resolve(this.runtimeClasses.get(name)),
      getPriorityClass: (name) => Promise.resolve(this.priorityClasses.get(name)),
      listPriorityClasses: () => Promise.resolve([...this.priorityClasses.values()]),
      // Namespaces the input does not create are assumed to exist (helm --create-namespace, kubectl create ns).
      getNamespace: (name) =>
        Promise.resolve(this.namespaces.get(name) ?? { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, status: { phase: 'Active' } }),
      // The ServiceAccount controller creates `default` in every namespace.
      getServiceAccount: (namespace, name) =>
        Promise.resolve(this.serviceAccounts.get(`${namespace}/${name}`) ?? (name === 'default' ? { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } } : undefined)),
      listLimitRanges: (namespace) => Promise.resolve(this.limitRanges.filter((l) => l.metadata?.namespace === namespace)),
      getNode: (name) => Promise.resolve(this.nodes.get(name)),
      getPod: () => Promise.resolve(undefined),
      // Offline there are no pods yet: a namespace's new enforce level has none to check.
      listPods: () => Promise.resolve([]),
      // The cluster view holds no StorageClasses: offline, a claim without a class keeps none.
      listStorageClasses: () => Promise.resolve([]),
      listIngressClasses: () => Promise.resolve([]),
      // No controller fills in quota usage offline, so no quota is enforced.
      listResourceQuotas: () => Promise.resolve([]),
      updateResourceQuotaStatus: (quota) => Promise.resolve(quota),
      // Offline no ValidatingAdmissionPolicy is enforced (a policy in the input is not bound in a cluster yet).
      listValidatingAdmissionPolicies: () => Promise.resolve([]),
      listValidatingAdmissionPolicyBindings: () => Promise.resolve([]),
      resourceForKind: () => undefined,
      getObject: () => Promise.resolve(undefined),
      listObjects: () => Promise.resolve([]),
      // Offline there is no RBAC to ask: every check is allowed, as for the cluster admin who applies the input.
      authorize: () => Promise.resolve({ decision: 'allow', reason: '' }),
    };
  }

  /**
   * Creates `input` (a copy; the input is not changed) as `kubectl create` would: answers the stored
   * object, or the API server's refusal with its message (`Deployment.apps "x" is invalid: [...]`).
   */
  async create(input: KubeObject): Promise<CreateResult> {
    const apiVersion = input.apiVersion ?? '';
    const kind = input.kind ?? '';
    const def = this.resourceFor(apiVersion, kind);
    if (def === undefined) return { ok: false, reason: 'NotServed', message: `no matches for kind "${kind}" in version "${apiVersion}"` };
    const obj = structuredClone(input) as KubeObject & Record<string, unknown>;
    const md = (obj.metadata ??= {});
    let namespace = '';
    if (def.namespaced) {
      namespace = md.namespace !== undefined && md.namespace !== '' ? md.namespace : 'default';
      md.namespace = namespace;
    } else {
      delete md.namespace;
    }
    try {
      applyDefaults({ group: def.group, kind: def.kind }, obj);
      const attrs = (name: string): AdmissionAttributes => ({ operation: 'CREATE', resource: def, subresource: '', namespace, name, object: obj, oldObject: undefined, userInfo: admin, dryRun: true });
      await runMutating(this.chain, attrs(md.name ?? ''), this.lookup());
      prepareForCreate(def, obj);
      (md as { uid?: string }).uid = `00000000-0000-4000-8000-${String(++this.uids).padStart(12, '0')}`;
      if ((md.name === undefined || md.name === '') && md.generateName !== undefined && md.generateName !== '') {
        md.name = md.generateName + suffix(this.generated++);
      }
      if (md.name === undefined || md.name === '') {
        throw apiErrors.invalid({ group: def.group, kind: def.kind }, '', [fieldErrors.required('metadata.name', 'name or generateName is required')]);
      }
      const errs = validate({ group: def.group, kind: def.kind }, obj, undefined, { namespaced: def.namespaced });
      if (errs.length > 0) throw apiErrors.invalid({ group: def.group, kind: def.kind }, md.name, errs);
      await runValidating(this.chain, attrs(md.name), this.lookup());
    } catch (e) {
      if (isApiError(e)) return { ok: false, reason: e.reason, message: e.message };
      throw e;
    }
    this.remember(obj);
    return { ok: true, obj };
  }

  private remember(obj: KubeObject): void {
    const name = obj.metadata?.name ?? '';
    switch (`${obj.apiVersion ?? ''}/${obj.kind ?? ''}`) {
      case 'node.k8s.io/v1/RuntimeClass':
        this.runtimeClasses.set(name, obj as RuntimeClass);
        return;
      case 'scheduling.k8s.io/v1/PriorityClass':
        this.priorityClasses.set(name, obj as PriorityClass);
        return;
      case 'v1/Namespace':
        this.namespaces.set(name, obj as Namespace);
        return;
      case 'v1/ServiceAccount':
        this.serviceAccounts.set(`${obj.metadata?.namespace ?? ''}/${name}`, obj as ServiceAccount);
        return;
      case 'v1/LimitRange':
        this.limitRanges.push(obj as LimitRange);
        return;
      default:
    }
  }
}

/** A deterministic stand-in for the registry's 5-character random suffix (same alphabet). */
function suffix(n: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  let x = n;
  for (let i = 0; i < 5; i++) {
    s = (alphabet[x % alphabet.length] ?? 'b') + s;
    x = Math.floor(x / alphabet.length);
  }
  return s;
}
