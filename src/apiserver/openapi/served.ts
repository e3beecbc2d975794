/**
 * Which parts of Kubernetes 1.32's published OpenAPI documents kubemix serves: the generally available
 * group/versions a default 1.32 kube-apiserver serves (no alpha or beta versions, so not
 * `node.k8s.io/v1beta1` nor `resource.k8s.io`). Used by `generate-data.ts` to cut the documents down.
 */

/** v3 document paths served under `/openapi/v3/<path>` (the keys of the `/openapi/v3` root). */
export function isServedV3Path(path: string): boolean {
  if (path === 'logs') return false;
  const m = /^apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (!m) return true; // api, api/v1, apis, version, openid/v1/jwks, .well-known/...
  const group = m[1] ?? '';
  const version = m[2];
  if (version !== undefined) return isGAVersion(version) && !unservedGroups.has(group);
  return !unservedGroups.has(group);
}

/** Groups with no generally available version in 1.32. */
const unservedGroups = new Set(['internal.apiserver.k8s.io', 'resource.k8s.io', 'storagemigration.k8s.io']);

export function isGAVersion(version: string): boolean {
  return /^v\d+$/.test(version);
}

/** Whether an OpenAPI v2 path (`/apis/apps/v1/deployments`) is served. */
export function isServedV2Path(path: string): boolean {
  if (path.startsWith('/logs')) return false;
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?/.exec(path);
  if (!m) return true;
  const group = m[1] ?? '';
  if (unservedGroups.has(group)) return false;
  const version = m[2];
  return version === undefined || isGAVersion(version);
}

/** Whether a definition name (`io.k8s.api.node.v1beta1.RuntimeClass`) belongs to a served version. */
export function isServedDefinition(name: string): boolean {
  return !/\.v\d+(alpha|beta)\d+\./.test(name) && !name.startsWith('io.k8s.api.apiserverinternal.') && !name.startsWith('io.k8s.api.storagemigration.') && !name.startsWith('io.k8s.api.resource.');
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export function isServedGVK(gvk: GroupVersionKind): boolean {
  return isGAVersion(gvk.version) && !unservedGroups.has(gvk.group);
}

/** The file name a v3 path is stored under in data/ (`apis/apps/v1` -> `apis__apps__v1.json.gz`). */
export function v3FileOfPath(path: string): string {
  return `${path.split('/').join('__')}.json.gz`;
}
