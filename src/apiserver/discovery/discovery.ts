/**
 * Discovery documents: the legacy ones (`/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`) and aggregated
 * discovery (`Accept: ...;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io`), both built from the
 * resource table so CRDs appear as soon as they are established.
 */
import type { ResourceDef, ResourceTable } from './resource-defs.js';

/** kube-apiserver's group order in `/apis` (what a 1.32 server answered); unknown groups follow, sorted. */
const groupOrder = [
  'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling',
  'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io',
  'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io',
  'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io',
];

function groupRank(g: string): number {
  const i = groupOrder.indexOf(g);
  return i === -1 ? groupOrder.length : i;
}

export function sortedGroups(table: ResourceTable): { name: string; versions: string[] }[] {
  const groups = new Map<string, Set<string>>();
  for (const { group, version } of table.groupVersions()) {
    if (group === '') continue;
    const s = groups.get(group) ?? new Set<string>();
    s.add(version);
    groups.set(group, s);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => groupRank(a) - groupRank(b) || a.localeCompare(b))
    .map(([name, versions]) => ({ name, versions: [...versions].sort(compareVersions) }));
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [0, 0, 0];
    const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = parse(a);
  const [sb, mb, nb] = parse(b);
  return sb - sa || mb - ma || nb - na;
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(name: string, versions: string[]): object {
  const gvs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(table: ResourceTable): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: sortedGroups(table).map((g) => groupDoc(g.name, g.versions)) };
}

export function apiGroup(table: ResourceTable, group: string): object | undefined {
  const g = sortedGroups(table).find((x) => x.name === group);
  if (g === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.name, g.versions) };
}

function resourceEntries(def: ResourceDef): object[] {
  const main: Record<string, unknown> = {
    name: def.resource,
    singularName: def.singularName,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length > 0) main['shortNames'] = def.shortNames;
  if (def.categories.length > 0) main['categories'] = def.categories;
  if (def.storageVersionHash !== undefined) main['storageVersionHash'] = def.storageVersionHash;
  const out: object[] = [main];
  for (const sub of [...def.subresources.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const s: Record<string, unknown> = { name: `${def.resource}/${sub.name}`, singularName: '', namespaced: def.namespaced };
    if (sub.group !== undefined) s['group'] = sub.group;
    if (sub.version !== undefined) s['version'] = sub.version;
    s['kind'] = sub.kind;
    s['verbs'] = sub.verbs;
    out.push(s);
  }
  return out;
}

export function apiResourceList(table: ResourceTable, group: string, version: string): object | undefined {
  const defs = table.byGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    ...(group === '' ? {} : { apiVersion: 'v1' }),
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: defs.flatMap(resourceEntries),
  };
}

function aggregatedResource(def: ResourceDef): object {
  const r: Record<string, unknown> = {
    resource: def.resource,
    responseKind: { group: '', version: '', kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singularName,
    verbs: def.verbs,
  };
  if (def.shortNames.length > 0) r['shortNames'] = def.shortNames;
  if (def.categories.length > 0) r['categories'] = def.categories;
  const subs = [...def.subresources.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (subs.length > 0) {
    r['subresources'] = subs.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind },
      verbs: s.verbs,
    }));
  }
  return r;
}

/** The aggregated discovery document for `/api` (core) or `/apis` (groups). */
export function aggregatedDiscovery(table: ResourceTable, core: boolean): object {
  const items = core
    ? [{ metadata: { creationTimestamp: null }, versions: [{ version: 'v1', resources: table.byGroupVersion('', 'v1').map(aggregatedResource), freshness: 'Current' }] }]
    : sortedGroups(table).map((g) => ({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({
          version: v,
          resources: table.byGroupVersion(g.name, v).map(aggregatedResource),
          freshness: 'Current',
        })),
      }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
