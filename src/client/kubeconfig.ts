/**
 * kubeconfig files (client-go's `clientcmd`): read one into `HttpClientOptions`, write one for a cluster.
 *
 * Reading supports what kubeadm, kind, EKS-style and kubemix's own files use: inline `*-data` fields
 * (base64), file paths (relative to the kubeconfig's folder), bearer `token`/`tokenFile` and
 * `insecure-skip-tls-verify`. Exec and auth-provider plugins are refused with a clear error; `proxy-url` and
 * `tls-server-name` are ignored.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { HttpClient, type HttpClientOptions } from './http-client.js';

/** What a kubeconfig context resolves to. */
export interface LoadedKubeconfig extends HttpClientOptions {
  contextName: string;
  clusterName: string;
  userName: string;
  /** The context's namespace, if it names one. */
  namespace?: string;
}

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}

type Fields = Record<string, unknown>;

function asRecord(v: unknown): Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Fields) : {};
}

function str(f: Fields, key: string): string | undefined {
  const v = f[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function find(list: unknown, name: string, field: 'cluster' | 'user' | 'context', path: string): Fields {
  const entries = Array.isArray(list) ? (list as Named<unknown>[]) : [];
  const hit = entries.find((e) => asRecord(e)['name'] === name);
  if (hit === undefined) throw new Error(`kubeconfig ${path}: ${field} "${name}" not found`);
  return asRecord(asRecord(hit)[field]);
}

/**
 * The kubeconfig kubectl would use: the first entry of `$KUBECONFIG` (kubectl merges all of them; we do not),
 * else `~/.kube/config`. `env` defaults to `process.env`, read at call time.
 */
export function defaultKubeconfigPath(env: Record<string, string | undefined> = process.env): string {
  const first = (env['KUBECONFIG'] ?? '').split(delimiter).find((p) => p !== '');
  return first ?? join(env['HOME'] ?? homedir(), '.kube', 'config');
}

/** Reads `path` and resolves `opts.context` (default: `current-context`). */
export function loadKubeconfig(path: string, opts: { context?: string } = {}): LoadedKubeconfig {
  const dir = dirname(resolve(path));
  const doc = asRecord(parse(readFileSync(path, 'utf8')));
  const contextName = opts.context ?? str(doc, 'current-context');
  if (contextName === undefined) throw new Error(`kubeconfig ${path}: no context given and no current-context set`);
  const context = find(doc['contexts'], contextName, 'context', path);
  const clusterName = str(context, 'cluster');
  if (clusterName === undefined) throw new Error(`kubeconfig ${path}: context "${contextName}" names no cluster`);
  const userName = str(context, 'user') ?? '';
  const cluster = find(doc['clusters'], clusterName, 'cluster', path);
  const user = userName === '' ? {} : find(doc['users'], userName, 'user', path);
  const server = str(cluster, 'server');
  if (server === undefined) throw new Error(`kubeconfig ${path}: cluster "${clusterName}" has no server`);

  const readPath = (p: string): Buffer => readFileSync(isAbsolute(p) ? p : resolve(dir, p));
  const material = (f: Fields, dataKey: string, fileKey: string): Buffer | undefined => {
    const data = str(f, dataKey);
    if (data !== undefined) return Buffer.from(data, 'base64');
    const file = str(f, fileKey);
    return file !== undefined ? readPath(file) : undefined;
  };

  const out: LoadedKubeconfig = { server, contextName, clusterName, userName };
  const ca = material(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca !== undefined) out.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) out.insecureSkipTLSVerify = true;
  const cert = material(user, 'client-certificate-data', 'client-certificate');
  if (cert !== undefined) out.cert = cert;
  const key = material(user, 'client-key-data', 'client-key');
  if (key !== undefined) out.key = key;
  if (cert === undefined && (user['exec'] !== undefined || user['auth-provider'] !== undefined)) {
    throw new Error(`kubeconfig ${path}: user "${userName}" authenticates with an exec or auth-provider plugin, which kubemix does not support`);
  }
  const token = str(user, 'token') ?? (str(user, 'tokenFile') !== undefined ? readPath(str(user, 'tokenFile') ?? '').toString('utf8').trim() : undefined);
  if (token !== undefined) out.token = token;
  const namespace = str(context, 'namespace');
  if (namespace !== undefined) out.namespace = namespace;
  return out;
}

/** An `HttpClient` for the current (or named) context of a kubeconfig. */
export function httpClientFromKubeconfig(
  path: string,
  opts: { context?: string } & Omit<HttpClientOptions, 'server'> = {},
): HttpClient {
  const { context, ...overrides } = opts;
  const loaded = loadKubeconfig(path, context !== undefined ? { context } : {});
  const { contextName: _c, clusterName: _cl, userName: _u, namespace: _n, ...clientOpts } = loaded;
  return new HttpClient({ ...clientOpts, ...overrides });
}

export interface WriteKubeconfigOptions {
  server: string;
  caPem: string | Buffer;
  clientCertPem?: string | Buffer;
  clientKeyPem?: string | Buffer;
  token?: string;
  clusterName: string;
  userName: string;
  contextName: string;
  namespace?: string;
}

/** Writes a single-context kubeconfig (mode 0600, as kubeadm writes admin.conf). */
export function writeKubeconfig(path: string, opts: WriteKubeconfigOptions): void {
  const b64 = (v: string | Buffer): string => Buffer.from(v).toString('base64');
  const user: Fields = {};
  if (opts.clientCertPem !== undefined) user['client-certificate-data'] = b64(opts.clientCertPem);
  if (opts.clientKeyPem !== undefined) user['client-key-data'] = b64(opts.clientKeyPem);
  if (opts.token !== undefined) user['token'] = opts.token;
  const context: Fields = { cluster: opts.clusterName, user: opts.userName };
  if (opts.namespace !== undefined) context['namespace'] = opts.namespace;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: opts.clusterName, cluster: { 'certificate-authority-data': b64(opts.caPem), server: opts.server } }],
    contexts: [{ name: opts.contextName, context }],
    'current-context': opts.contextName,
    preferences: {},
    users: [{ name: opts.userName, user }],
  };
  writeFileSync(path, stringify(doc), { mode: 0o600 });
  chmodSync(path, 0o600);
}
