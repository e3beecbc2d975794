/**
 * PATCH for every resource, and the subresources: status, scale, pods/binding, pods/eviction, pods/log,
 * namespaces/finalize, CSR approval, serviceaccounts/token, the exec-style pod subresources (refused:
 * containers are simulated), and the authentication and authorization reviews (`kubectl auth can-i`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PodCondition } from 'kubernetes-types/core/v1.js';
import { parse as parseYaml } from 'yaml';
import { apiErrors, isAlreadyExists } from '../api/errors.js';
import { FieldSelector } from '../api/fields.js';
import { labelSelectorAsSelector } from '../api/labels.js';
import { scaleOf } from '../api/scale.js';
import { apiVersionOf, resources } from '../api/resources.js';
import type { Authorizer, AuthorizationAttributes } from './auth/authz.js';
import { isRuleResolver } from './auth/authz.js';
import type { RequestInfo } from './request.js';
import type { ResourceDef, ResourceTable } from './discovery/resource-defs.js';
import type { RequestContext, Store } from './registry/store.js';
import { groupResource, rfc3339 } from './registry/store.js';
import type { StoredObject } from './storage/watch-cache.js';
import type { UserInfo } from './registry/policy.js';
import type { Patcher, PodLogSource } from './seams.js';
import type { TokenRequestRest } from './token-request.js';
import { cacheMaxAgeSeconds, userInfoOf, type IssuerDiscoveryDocument, type ServiceAccountTokenAuthenticator } from './auth/serviceaccount/index.js';

export interface SubresourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  def: ResourceDef;
  namespace: string;
  name: string;
  q: URLSearchParams;
  ctx: RequestContext;
  accept: { table: boolean; partial: boolean };
  readBody: () => Promise<unknown>;
}

/** The PDB decision of the eviction subresource (src/controllers/disruption). */
export interface EvictionPolicy {
  /**
   * Decides an eviction of `pod` given the PDBs of its namespace; returns the PDB status update to write
   * first (when one budget covers the pod) or throws ApiError (429 / 500) to refuse.
   */
  check(pod: StoredObject, pdbs: StoredObject[], now: Date): { pdbToUpdate?: StoredObject };
}

export interface SubresourceOptions {
  table: ResourceTable;
  store: Store;
  authorizer: Authorizer;
  /** Answers TokenReviews (without it every token is unknown). */
  tokens?: { authenticateToken(token: string): Promise<UserInfo | undefined> };
  patcher?: Patcher;
  logs?: PodLogSource;
  eviction?: EvictionPolicy;
  now?: () => Date;
}

/** Signals inside an update loop that an apply must create the object instead. */
class ApplyCreates extends Error {}

export type BindingBody = { metadata?: { name?: string; annotations?: Record<string, string> }; target?: { kind?: string; name?: string } };
export type EvictionBody = { deleteOptions?: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string } } };

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

function patchKind(contentType: string): PatchKind {
  const ct = contentType.split(';')[0]?.trim() ?? '';
  switch (ct) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw apiErrors.unsupportedMediaType(ct);
  }
}

function successStatus(code = 201): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
}

/** Service account tokens: the `serviceaccounts/token` subresource and the authenticator of its tokens. */
export interface ServiceAccountTokens {
  tokenRequest: TokenRequestRest;
  authenticator: ServiceAccountTokenAuthenticator;
  /** The issuer discovery document of a path (`/.well-known/openid-configuration`, `/openid/v1/jwks`), if any. */
  issuerDiscovery(path: string, externalAddress: string): IssuerDiscoveryDocument | undefined;
}

export class Subresources {
  private serviceAccountTokens: ServiceAccountTokens | undefined;

  constructor(private readonly o: SubresourceOptions) {}

  /**
   * Serves `serviceaccounts/token` and reviews service account tokens for their audiences (set before
   * serving; without it the subresource is not served, as kube-apiserver without a service account issuer).
   */
  setServiceAccountTokens(t: ServiceAccountTokens): void {
    this.serviceAccountTokens = t;
  }

  private now(): Date {
    return (this.o.now ?? (() => new Date()))();
  }

  /** PATCH of a resource or its status/scale subresource. */
  async patch(
    def: ResourceDef,
    namespace: string,
    name: string,
    subresource: string,
    contentType: string,
    /** The request body: bytes from HTTP, text from in-process callers. */
    rawBody: Buffer | string,
    ctx: RequestContext,
    q: URLSearchParams,
  ): Promise<{ object: StoredObject; created: boolean }> {
    const kind = patchKind(contentType);
    const patcher = this.o.patcher;
    if (patcher === undefined) throw apiErrors.unsupportedMediaType(contentType);
    const text = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    let body: unknown;
    try {
      body = kind === 'apply' ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
    } catch (e) {
      throw apiErrors.badRequest(`error decoding patch: ${(e as Error).message}`);
    }
    const force = q.get('force') === 'true';
    if (kind === 'apply') {
      if (q.get('fieldManager') === null || q.get('fieldManager') === '') {
        throw apiErrors.badRequest('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw apiErrors.badRequest('error decoding YAML: the object provided is not an object');
      const applied = body as StoredObject;
      const applyCtx: RequestContext = { ...ctx, applied: true };
      const opts = { fieldManager: ctx.fieldManager, force, subresource };
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.o.store.guaranteedUpdate(def, namespace, name, subresource, applyCtx, undefined, (live) => {
            if (live === undefined) throw new ApplyCreates();
            return patcher.apply(def, live, applied, opts);
          });
        } catch (e) {
          if (!(e instanceof ApplyCreates)) throw e;
        }
        if (subresource !== '') throw apiErrors.notFound(groupResource(def), name);
        // Apply to an absent object creates it (kube-apiserver's applyPatcher with a nil live object).
        const created = patcher.apply(def, undefined, applied, opts);
        const md = (created.metadata ??= {});
        if (md.name === undefined || md.name === '') md.name = name;
        try {
          return { object: await this.o.store.create(def, namespace, created, applyCtx), created: true };
        } catch (e) {
          if (!isAlreadyExists(e) || attempt > 2) throw e;
        }
      }
    }
    if (force) throw apiErrors.badRequest('force may not be specified for non-apply patch');
    // JSON and strategic merge patches work on their own deep copy of the live object; a merge patch
    // shares the parts it leaves alone, so it is given a copy.
    return this.o.store.guaranteedUpdate(
      def,
      namespace,
      name,
      subresource,
      ctx,
      undefined,
      (live) => {
        if (live === undefined) throw apiErrors.notFound(groupResource(def), name);
        return patcher.patch(def, live, kind, body);
      },
      undefined,
      { liveUntouched: kind === 'json' || kind === 'strategic' },
    );
  }

  async serve(r: SubresourceRequest): Promise<void> {
    const { def, info, res } = r;
    const method = (r.req.method ?? 'GET').toUpperCase();
    const sub = info.subresource;
    const isPods = def.group === '' && def.resource === 'pods';
    if (sub === 'status' || sub === 'finalize' || sub === 'approval') return this.serveStatusLike(r, method);
    if (sub === 'scale') return this.serveScale(r, method);
    if (def.group === '' && def.resource === 'serviceaccounts' && sub === 'token') {
      if (method === 'POST') return this.createToken(r);
      throw apiErrors.methodNotAllowed();
    }
    if (isPods && sub === 'binding' && method === 'POST') return this.bind(r);
    if (isPods && sub === 'eviction' && method === 'POST') return this.evict(r);
    if (isPods && sub === 'log' && method === 'GET') return this.logs(r);
    if (isPods && (sub === 'exec' || sub === 'attach' || sub === 'portforward')) {
      const pod = await this.o.store.get(def, r.namespace, r.name);
      const node = ((pod['spec'] ?? {}) as { nodeName?: string }).nodeName ?? '';
      throw apiErrors.badRequest(
        `kubemix simulates containers: ${sub} is not available for pod ${r.namespace}/${r.name}${node !== '' ? ` on node ${node}` : ''} (there is no process to ${sub === 'portforward' ? 'forward to' : 'attach to'})`,
      );
    }
    void res;
    throw apiErrors.methodNotAllowed();
  }

  private async serveStatusLike(r: SubresourceRequest, method: string): Promise<void> {
    const sub = r.info.subresource;
    if (method === 'GET') {
      const obj = await this.o.store.get(r.def, r.namespace, r.name);
      return send(r.res, 200, obj);
    }
    if (method === 'PUT') {
      const body = (await r.readBody()) as StoredObject;
      const { object } = await this.o.store.update(r.def, r.namespace, r.name, sub, body, r.ctx);
      return send(r.res, 200, object);
    }
    if (method === 'PATCH' && sub === 'status') {
      const raw = await readRaw(r.req);
      const { object } = await this.patch(r.def, r.namespace, r.name, sub, r.req.headers['content-type'] ?? '', raw, r.ctx, r.q);
      return send(r.res, 200, object);
    }
    throw apiErrors.methodNotAllowed();
  }

  private async serveScale(r: SubresourceRequest, method: string): Promise<void> {
    const { def } = r;
    if (method === 'GET') return send(r.res, 200, scaleOf(def, await this.o.store.get(def, r.namespace, r.name)));
    let apply: (scale: Record<string, unknown>) => Record<string, unknown>;
    let pinned: string | undefined;
    if (method === 'PUT') {
      const body = (await r.readBody()) as { metadata?: { resourceVersion?: string }; spec?: { replicas?: number } };
      pinned = body.metadata?.resourceVersion;
      apply = () => body;
    } else if (method === 'PATCH') {
      const raw = await readRaw(r.req);
      const kind = patchKind(r.req.headers['content-type'] ?? '');
      const patcher = this.o.patcher;
      if (patcher === undefined || kind === 'apply') throw apiErrors.unsupportedMediaType(r.req.headers['content-type'] ?? '');
      const body = JSON.parse(raw.toString('utf8')) as unknown;
      const scaleDef = { ...def, group: 'autoscaling', version: 'v1', resource: 'scale', kind: 'Scale' } as ResourceDef;
      apply = (scale) => patcher.patch(scaleDef, scale, kind, body);
    } else {
      throw apiErrors.methodNotAllowed();
    }
    const { object } = await this.o.store.guaranteedUpdate(def, r.namespace, r.name, 'scale', r.ctx, undefined, (live) => {
      if (live === undefined) throw apiErrors.notFound(groupResource(def), r.name);
      const scale = apply(scaleOf(def, live));
      const rv = (scale['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion;
      if (pinned !== undefined && pinned !== '' && rv !== live.metadata?.resourceVersion) throw apiErrors.modified(groupResource(def), r.name);
      const replicas = (scale['spec'] as { replicas?: unknown } | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw apiErrors.invalid({ group: 'autoscaling', kind: 'Scale' }, r.name, [
          { type: 'FieldValueInvalid', field: 'spec.replicas', badValue: replicas ?? null, detail: 'must be greater than or equal to 0' },
        ]);
      }
      return { ...live, spec: { ...((live['spec'] ?? {})), replicas } };
    });
    send(r.res, 200, scaleOf(def, object));
  }

  /**
   * Serves service account issuer discovery on its non-resource paths (authorized like any non-resource
   * request); false when the path is not one of them.
   */
  serveIssuerDiscovery(path: string, res: ServerResponse, externalAddress: string): boolean {
    const doc = this.serviceAccountTokens?.issuerDiscovery(path, externalAddress);
    if (doc === undefined) return false;
    res.writeHead(200, { 'Content-Type': doc.contentType, 'Content-Length': Buffer.byteLength(doc.body), 'Cache-Control': `public, max-age=${cacheMaxAgeSeconds}` });
    res.end(doc.body);
    return true;
  }

  /** `serviceaccounts/token` (src/apiserver/token-request.ts). */
  private async createToken(r: SubresourceRequest): Promise<void> {
    const rest = this.serviceAccountTokens?.tokenRequest;
    if (rest === undefined) throw apiErrors.resourceNotServed();
    const body = await r.readBody();
    const warnings = (r.ctx.warnings ??= []);
    send(r.res, 201, await rest.create(r.namespace, r.name, body, warnings));
  }

  private async bind(r: SubresourceRequest): Promise<void> {
    send(r.res, 201, await this.bindPod(r.def, r.namespace, r.name, (await r.readBody()) as BindingBody, r.ctx));
  }

  /** `pods/binding`: assigns the pod to a node (only once) and marks it PodScheduled. */
  async bindPod(def: ResourceDef, namespace: string, name: string, body: BindingBody, ctx: RequestContext): Promise<Record<string, unknown>> {
    const r = { def, namespace, name, ctx };
    const target = body.target?.name ?? '';
    const bindingGr = { group: '', resource: 'pods/binding' };
    if (target === '') {
      throw apiErrors.invalid({ group: '', kind: 'Binding' }, r.name, [{ type: 'FieldValueRequired', field: 'target.name', badValue: '', detail: '' }]);
    }
    if (body.target?.kind !== undefined && body.target.kind !== '' && body.target.kind !== 'Node') {
      throw apiErrors.invalid({ group: '', kind: 'Binding' }, r.name, [
        { type: 'FieldValueNotSupported', field: 'target.kind', badValue: body.target.kind, detail: 'supported values: "Node", "<empty>"' },
      ]);
    }
    if (r.ctx.dryRun) return successStatus();
    await this.o.store.updateInternal(r.def, r.namespace, r.name, (pod) => {
      const spec = (pod['spec'] ??= {}) as { nodeName?: string };
      if (pod.metadata?.deletionTimestamp !== undefined) {
        throw apiErrors.conflict(bindingGr, r.name, `pod ${r.name} is being deleted, cannot be assigned to a host`);
      }
      if (spec.nodeName !== undefined && spec.nodeName !== '') {
        throw apiErrors.conflict(bindingGr, r.name, `pod ${r.name} is already assigned to node "${spec.nodeName}"`);
      }
      spec.nodeName = target;
      const md = (pod.metadata ??= {});
      if (body.metadata?.annotations !== undefined) md.annotations = { ...(md.annotations ?? {}), ...body.metadata.annotations };
      const status = (pod['status'] ??= {}) as { conditions?: { type: string; status: string; lastProbeTime?: null; lastTransitionTime?: string; reason?: string; message?: string }[] };
      const conditions = (status.conditions ??= []);
      const now = rfc3339(this.now());
      const existing = conditions.find((c) => c.type === 'PodScheduled');
      if (existing === undefined) conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
      else {
        if (existing.status !== 'True') existing.lastTransitionTime = now;
        existing.status = 'True';
        delete existing.reason;
        delete existing.message;
      }
      return pod;
    });
    return successStatus();
  }

  /**
   * `POST /api/v1/namespaces/<ns>/bindings` (kube-apiserver's LegacyBindingREST): binds the pod the
   * Binding names, as `pods/binding` does.
   */
  async bindByBinding(namespace: string, body: StoredObject, ctx: RequestContext): Promise<Record<string, unknown>> {
    const pods = this.o.table.get('', 'v1', 'pods');
    if (pods === undefined) throw apiErrors.notFound({ group: '', resource: 'pods' }, '');
    const name = body.metadata?.name ?? '';
    if (name === '') throw apiErrors.badRequest('Name parameter required.');
    return this.bindPod(pods, namespace, name, body, ctx);
  }

  private async evict(r: SubresourceRequest): Promise<void> {
    send(r.res, 201, await this.evictPod(r.def, r.namespace, r.name, (await r.readBody()) as EvictionBody, r.ctx));
  }

  /**
   * `pods/eviction`: deletes the pod unless a PodDisruptionBudget forbids it (429; the eviction policy
   * decides, pods it may evict regardless of budgets included: `canIgnorePDB`). Before the delete
   * the pod gets the DisruptionTarget condition (`addConditionAndDeletePod`), which Jobs' podFailurePolicy
   * rules match on.
   */
  async evictPod(def: ResourceDef, namespace: string, name: string, body: EvictionBody, ctx: RequestContext): Promise<Record<string, unknown>> {
    const r = { def, namespace, name, ctx };
    const pod = await this.o.store.get(r.def, r.namespace, r.name);
    if (this.o.eviction !== undefined) {
      const pdbDef = this.o.table.get(resources.poddisruptionbudgets.group, 'v1', 'poddisruptionbudgets');
      if (pdbDef !== undefined) {
        const listed = await this.o.store.list(pdbDef, { namespace: r.namespace, labelSelector: labelSelectorAsSelector({}), fieldSelector: FieldSelector.everything() });
        const decision = this.o.eviction.check(pod, listed.items.map((c) => c.obj), this.now());
        if (decision.pdbToUpdate !== undefined && !r.ctx.dryRun) {
          const pdb = decision.pdbToUpdate;
          await this.o.store.update(pdbDef, r.namespace, pdb.metadata?.name ?? '', 'status', pdb, r.ctx);
        }
      }
    }
    const opts = body.deleteOptions ?? {};
    let preconditions = opts.preconditions;
    if (!r.ctx.dryRun) {
      const updated = await this.addDisruptionTarget(r.def, r.namespace, r.name, preconditions, r.ctx);
      // The condition's write moved the resourceVersion a precondition named: the delete checks the new one.
      if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== '') {
        preconditions = { ...preconditions, resourceVersion: updated.metadata?.resourceVersion ?? '' };
      }
    }
    await this.o.store.delete(r.def, r.namespace, r.name, {
      ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
      ...(preconditions !== undefined ? { preconditions } : {}),
    }, r.ctx);
    return successStatus();
  }

  /**
   * The status write of `addConditionAndDeletePod`: the latest pod (its preconditions checked) with the
   * DisruptionTarget condition set as `podutil.UpdatePodCondition` sets it. Its precondition errors name the
   * kind `Pod`, as upstream's `getLatestPod` does.
   */
  private async addDisruptionTarget(def: ResourceDef, namespace: string, name: string, preconditions: { uid?: string; resourceVersion?: string } | undefined, ctx: RequestContext): Promise<StoredObject> {
    const podKind = { group: '', resource: 'Pod' };
    // Upstream writes through the pod's status store, past the handlers that track managedFields: the pod
    // gains the condition but no managedFields entry (`applied` keeps the store from recording one).
    const { object } = await this.o.store.guaranteedUpdate(def, namespace, name, 'status', { ...ctx, applied: true }, undefined, (live) => {
      if (live === undefined) throw apiErrors.notFound({ group: '', resource: 'pods' }, name);
      const md = live.metadata ?? {};
      if (preconditions?.uid !== undefined && preconditions.uid !== '' && preconditions.uid !== md.uid) {
        throw apiErrors.conflict(podKind, name, `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${md.uid ?? ''}). The object might have been deleted and then recreated`);
      }
      if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== '' && preconditions.resourceVersion !== md.resourceVersion) {
        throw apiErrors.conflict(
          podKind,
          name,
          `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${md.resourceVersion ?? ''}). The object might have been modified`,
        );
      }
      const status = ((live['status'] ??= {}) as { conditions?: PodCondition[] });
      const now = rfc3339(this.now());
      const conditions = status.conditions ?? [];
      const i = conditions.findIndex((c) => c.type === 'DisruptionTarget');
      const old = i < 0 ? undefined : conditions[i];
      const cond: PodCondition = {
        type: 'DisruptionTarget',
        status: 'True',
        lastProbeTime: null as unknown as string,
        lastTransitionTime: old?.status === 'True' ? (old.lastTransitionTime ?? now) : now,
        reason: 'EvictionByEvictionAPI',
        message: 'Eviction API: evicting',
      };
      status.conditions = i < 0 ? [...conditions, cond] : conditions.map((c, j) => (j === i ? cond : c));
      delete live.metadata?.resourceVersion;
      return live;
    });
    return object;
  }

  private async logs(r: SubresourceRequest): Promise<void> {
    const pod = await this.o.store.get(r.def, r.namespace, r.name);
    const spec = (pod['spec'] ?? {}) as { containers?: { name: string }[]; nodeName?: string };
    const containers = spec.containers ?? [];
    let container = r.q.get('container') ?? undefined;
    if (container === undefined || container === '') {
      if (containers.length !== 1) {
        throw apiErrors.badRequest(
          `a container name must be specified for pod ${r.name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`,
        );
      }
      container = containers[0]?.name;
    } else if (!containers.some((c) => c.name === container)) {
      throw apiErrors.badRequest(`container ${container} is not valid for pod ${r.name}`);
    }
    const tail = r.q.get('tailLines');
    const text = await this.o.logs?.logs(r.namespace, r.name, container, {
      ...(tail !== null ? { tailLines: Number(tail) } : {}),
      previous: r.q.get('previous') === 'true',
      timestamps: r.q.get('timestamps') === 'true',
    });
    if (text === undefined) {
      const waiting = ((pod['status'] ?? {}) as { containerStatuses?: { name: string; state?: { waiting?: { reason?: string } } }[] }).containerStatuses?.find((c) => c.name === container)?.state?.waiting?.reason;
      const reason = waiting ?? (spec.nodeName === undefined ? 'ContainerCreating' : 'ContainerCreating');
      throw apiErrors.badRequest(`container "${container ?? ''}" in pod "${r.name}" is waiting to start: ${reason}`);
    }
    r.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
    r.res.end(text);
  }

  /** The authentication and authorization reviews (`authentication.k8s.io/v1`, `authorization.k8s.io/v1`). */
  async review(def: ResourceDef, namespace: string, body: StoredObject, user: UserInfo): Promise<Record<string, unknown>> {
    if (def.resource === 'tokenreviews') return this.tokenReview(def, body);
    const spec = (body['spec'] ?? {}) as {
      resourceAttributes?: { namespace?: string; verb?: string; group?: string; resource?: string; subresource?: string; name?: string; version?: string };
      nonResourceAttributes?: { path?: string; verb?: string };
      user?: string;
      groups?: string[];
      namespace?: string;
    };
    if (def.resource === 'selfsubjectreviews') {
      // `kubectl auth whoami`: the user as authentication saw it.
      const userInfo: Record<string, unknown> = { username: user.username };
      if (user.uid !== undefined) userInfo['uid'] = user.uid;
      userInfo['groups'] = user.groups;
      if (user.extra !== undefined) userInfo['extra'] = user.extra;
      return { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { creationTimestamp: null }, status: { userInfo } };
    }
    const out: Record<string, unknown> = { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { creationTimestamp: null }, spec: body['spec'] ?? {} };
    if (def.resource === 'selfsubjectrulesreviews') {
      const authz = this.o.authorizer;
      const ns = ((body['spec'] ?? {}) as { namespace?: string }).namespace ?? '';
      if (isRuleResolver(authz)) {
        const r = await authz.rulesFor(user, ns);
        out['status'] = { resourceRules: r.resourceRules, nonResourceRules: r.nonResourceRules, incomplete: r.incomplete, ...(r.errors.length > 0 ? { evaluationError: r.errors.length === 1 ? r.errors[0] : `[${r.errors.join(', ')}]` } : {}) };
        return out;
      }
      const allowedAll = user.groups.includes('system:masters');
      out['status'] = allowedAll
        ? { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }
        : { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'rules are evaluated by the RBAC authorizer' };
      return out;
    }
    let subject = user;
    if (def.resource === 'subjectaccessreviews' || def.resource === 'localsubjectaccessreviews') {
      subject = { username: spec.user ?? '', groups: spec.groups ?? [] };
    }
    const ra = spec.resourceAttributes;
    const nra = spec.nonResourceAttributes;
    if (ra === undefined && nra === undefined) {
      throw apiErrors.invalid({ group: def.group, kind: def.kind }, '', [
        { type: 'FieldValueRequired', field: 'spec.resourceAttributes', badValue: '', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' },
      ]);
    }
    const attrs: AuthorizationAttributes = {
      user: subject,
      verb: ra?.verb ?? nra?.verb ?? '',
      resourceRequest: ra !== undefined,
      group: ra?.group ?? '',
      version: ra?.version ?? '',
      resource: ra?.resource ?? '',
      subresource: ra?.subresource ?? '',
      namespace: def.resource === 'localsubjectaccessreviews' ? namespace : (ra?.namespace ?? ''),
      name: ra?.name ?? '',
      path: nra?.path ?? '',
    };
    const d = await this.o.authorizer.authorize(attrs);
    const status: Record<string, unknown> = { allowed: d.decision === 'allow' };
    if (d.decision === 'deny') status['denied'] = true;
    if (d.reason !== '') status['reason'] = d.reason;
    out['status'] = status;
    return out;
  }

  /**
   * `TokenReview` (pkg/registry/authentication/tokenreview): authenticates `spec.token` as a bearer token of
   * a request would be. Service account tokens are checked against the audiences asked for (default the
   * API's) and answer the ones they are valid for; the other token authenticators accept any audience, so
   * a token they know answers the audiences asked for. An unknown token answers `authenticated` unset, an
   * empty user and the bearer token authenticator's error.
   */
  private async tokenReview(def: ResourceDef, body: StoredObject): Promise<Record<string, unknown>> {
    const spec = (body['spec'] ?? {}) as { token?: string; audiences?: string[] };
    if ((spec.token ?? '') === '') throw apiErrors.badRequest('token is required for TokenReview in authentication');
    const audiences = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : apiAudiences;
    const sa = await this.serviceAccountTokens?.authenticator.authenticate(spec.token ?? '', audiences);
    if (sa !== undefined) {
      const out = { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { creationTimestamp: null }, spec: body['spec'] ?? {} };
      if (!sa.ok) return { ...out, status: { user: {}, error: `[invalid bearer token, ${sa.error}]` } };
      const u = userInfoOf(sa.info);
      return {
        ...out,
        status: { authenticated: true, user: { username: u.username, uid: u.uid, groups: [...u.groups, 'system:authenticated'], ...(u.extra !== undefined ? { extra: u.extra } : {}) }, audiences: sa.audiences },
      };
    }
    const u = await this.o.tokens?.authenticateToken(spec.token ?? '');
    const status =
      u === undefined
        ? { user: {}, error: 'invalid bearer token' }
        : {
            authenticated: true,
            user: { username: u.username, ...(u.uid !== undefined ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra !== undefined && Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}) },
            audiences,
          };
    return { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { creationTimestamp: null }, spec: body['spec'] ?? {}, status };
  }
}


/** kube-apiserver's `--api-audiences` as kubeadm sets it (the service account issuer). */
const apiAudiences = ['https://kubernetes.default.svc.cluster.local'];

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

