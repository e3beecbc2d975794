/**
 * RBAC objects read from the API server's watch caches (no storage round trip per request), and the
 * start-up reconciliation of the default policy (kube-apiserver's `rbac/bootstrap-roles` post-start hook).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { ApiServer } from '../../server.js';
import { systemUser } from '../../server.js';
import { InProcessClient } from '../../in-process-client.js';
import { objectKey } from '../../registry/store.js';
import type { ResourceDef } from '../../discovery/resource-defs.js';
import { isNotFound } from '../../../api/errors.js';
import { resources } from '../../../api/resources.js';
import type { Client, KubeObject } from '../../../client/client.js';
import type { RbacSource } from './rbac.js';
import { effectiveClusterRoleRules, ruleKey } from './rbac.js';
import { autoUpdateAnnotation, clusterRoleBindings, clusterRoles, namespaceRoleBindings, namespaceRoles } from './bootstrap-policy.js';

const all = { matches: (): boolean => true };

/** Namespaces whose RoleBindings lists are kept at once (requests come from few namespaces at a time). */
const maxKeptLists = 1024;

/** An `RbacSource` over a started (or starting) API server's watch caches. */
export function storeRbacSource(server: ApiServer): RbacSource {
  const def = (resource: string): ResourceDef => {
    const d = server.table.get('rbac.authorization.k8s.io', 'v1', resource);
    if (d === undefined) throw new Error(`rbac.authorization.k8s.io/v1 ${resource} not served`);
    return d;
  };
  const get = async <T>(resource: string, namespace: string, name: string): Promise<T | undefined> => {
    const d = def(resource);
    const cache = await server.store.cache(d);
    return cache.get(objectKey(d, namespace, name))?.obj as T | undefined;
  };
  // Every request lists the bindings: the lists are kept until their cache changes (callers only read them).
  const lists = new Map<string, { cache: object; generation: number; items: unknown[] }>();
  const cacheIds = new WeakMap<object, number>();
  let nextCacheId = 0;
  const idOf = (cache: object): number => {
    let id = cacheIds.get(cache);
    if (id === undefined) cacheIds.set(cache, (id = nextCacheId++));
    return id;
  };
  const list = async <T>(resource: string, namespace?: string): Promise<T[]> => {
    const cache = await server.store.cache(def(resource));
    const key = `${resource}/${namespace ?? ''}`;
    const kept = lists.get(key);
    if (kept !== undefined && kept.cache === cache && kept.generation === cache.generation()) return kept.items as T[];
    const items = cache.list(namespace !== undefined ? { ...all, namespace } : all).map((c) => c.obj);
    if (lists.size >= maxKeptLists) lists.clear();
    lists.set(key, { cache, generation: cache.generation(), items });
    return items as T[];
  };
  let policyDefs: ResourceDef[] | undefined;
  return {
    policyVersion: async () => {
      policyDefs ??= ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles'].map(def);
      const caches = await Promise.all(policyDefs.map((d) => server.store.cache(d)));
      // A cache started again (a new object) counts from 0: its identity is part of the version.
      return caches.map((c) => `${idOf(c)}.${c.generation()}`).join('/');
    },
    getRole: (ns, name) => get<Role>('roles', ns, name),
    getClusterRole: (name) => get<ClusterRole>('clusterroles', '', name),
    listClusterRoles: () => list<ClusterRole>('clusterroles'),
    listRoleBindings: (ns) => list<RoleBinding>('rolebindings', ns),
    listClusterRoleBindings: () => list<ClusterRoleBinding>('clusterrolebindings'),
  };
}


function unionRules(have: readonly PolicyRule[], want: readonly PolicyRule[]): PolicyRule[] | undefined {
  const keys = new Set(have.map(ruleKey));
  const missing = want.filter((r) => !keys.has(ruleKey(r)));
  return missing.length === 0 ? undefined : [...have, ...missing];
}

function subjectKey(s: Subject): string {
  return `${s.kind}/${s.namespace ?? ''}/${s.name}`;
}

function unionSubjects(have: readonly Subject[], want: readonly Subject[]): Subject[] | undefined {
  const keys = new Set(have.map(subjectKey));
  const missing = want.filter((s) => !keys.has(subjectKey(s)));
  return missing.length === 0 ? undefined : [...have, ...missing];
}

function autoUpdate(obj: KubeObject): boolean {
  return obj.metadata?.annotations?.[autoUpdateAnnotation] !== 'false';
}

async function ensure<T extends KubeObject>(
  client: Client,
  res: (typeof resources)[keyof typeof resources],
  want: T,
  merge: (live: T, want: T) => T | undefined,
): Promise<void> {
  const name = want.metadata?.name ?? '';
  const namespace = want.metadata?.namespace;
  let live: T;
  try {
    live = await client.get<T>(res, name, namespace !== undefined ? { namespace } : {});
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await client.create(res, want);
    return;
  }
  if (!autoUpdate(live)) return;
  const updated = merge(live, want);
  if (updated !== undefined) await client.update(res, updated);
}

/**
 * Creates missing default roles and bindings and adds missing rules and subjects to existing ones unless
 * they carry `rbac.authorization.k8s.io/autoupdate: "false"` (reconciliation never removes what a user
 * added). Then fills the rules of aggregated ClusterRoles (what the clusterrole-aggregation controller
 * keeps up to date). Idempotent.
 */
export async function reconcileBootstrapPolicy(server: ApiServer): Promise<void> {
  const client = new InProcessClient(server, { user: systemUser, fieldManager: 'kube-apiserver' });
  for (const r of clusterRoles()) {
    await ensure<ClusterRole>(client, resources.clusterroles, r, (live, want) => {
      if (want.aggregationRule !== undefined) return undefined;
      const rules = unionRules(live.rules ?? [], want.rules ?? []);
      return rules === undefined ? undefined : { ...live, rules };
    });
  }
  for (const b of clusterRoleBindings()) {
    await ensure<ClusterRoleBinding>(client, resources.clusterrolebindings, b, (live, want) => {
      const subjects = unionSubjects(live.subjects ?? [], want.subjects ?? []);
      return subjects === undefined ? undefined : { ...live, subjects };
    });
  }
  for (const r of namespaceRoles()) {
    await ensure<Role>(client, resources.roles, r, (live, want) => {
      const rules = unionRules(live.rules ?? [], want.rules ?? []);
      return rules === undefined ? undefined : { ...live, rules };
    });
  }
  for (const b of namespaceRoleBindings()) {
    await ensure<RoleBinding>(client, resources.rolebindings, b, (live, want) => {
      const subjects = unionSubjects(live.subjects ?? [], want.subjects ?? []);
      return subjects === undefined ? undefined : { ...live, subjects };
    });
  }
  // A quorum list waits until the watch cache has seen the writes above.
  await client.list(resources.clusterroles);
  await aggregateClusterRoles(server, client);
}

/** Writes each aggregated ClusterRole's rules (the union of the roles its selectors match, transitively). */
export async function aggregateClusterRoles(server: ApiServer, client: Client): Promise<void> {
  const source = storeRbacSource(server);
  for (const role of await source.listClusterRoles()) {
    if ((role.aggregationRule?.clusterRoleSelectors ?? []).length === 0) continue;
    const want = await effectiveClusterRoleRules(source, { ...role, rules: [] });
    if (ruleKeys(want) === ruleKeys(role.rules ?? [])) continue;
    const live = await client.get<ClusterRole>(resources.clusterroles, role.metadata?.name ?? '');
    await client.update(resources.clusterroles, { ...live, rules: want });
  }
}

function ruleKeys(rules: readonly PolicyRule[]): string {
  return rules.map(ruleKey).join('\n');
}
