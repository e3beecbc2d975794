/**
 * Parsing of Kubernetes REST paths into request info (kube-apiserver's `RequestInfoFactory`):
 * `/api/v1/namespaces/ns/pods/name/status`, `/apis/apps/v1/deployments`, ...
 */

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (authorization verb) */
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const namespaceSubresources = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  if (parts.length === 0) return info;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length < 2) return info;
    info.apiPrefix = 'api';
    info.version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length < 3) {
      info.apiPrefix = 'apis';
      info.group = parts[1] ?? '';
      return info;
    }
    info.apiPrefix = 'apis';
    info.group = parts[1] ?? '';
    info.version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return info;
  }
  if (rest.length === 0) return info;
  info.isResourceRequest = true;
  // Legacy watch paths: /api/v1/watch/namespaces/ns/pods
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    info.namespace = rest[1] ?? '';
    // /api/v1/namespaces/<name>[/status|/finalize] is the namespace object itself.
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  if (rest.length >= 2) info.name = rest[1] ?? '';
  if (rest.length >= 3) info.subresource = rest.slice(2).join('/');
  const m = method.toUpperCase();
  const isWatch = watchPath || query.get('watch') === 'true' || query.get('watch') === '1';
  if (m === 'GET' || m === 'HEAD') {
    if (info.name === '') info.verb = isWatch ? 'watch' : 'list';
    else info.verb = isWatch ? 'watch' : 'get';
  } else if (m === 'POST') info.verb = 'create';
  else if (m === 'PUT') info.verb = 'update';
  else if (m === 'PATCH') info.verb = 'patch';
  else if (m === 'DELETE') info.verb = info.name === '' ? 'deletecollection' : 'delete';
  return info;
}
