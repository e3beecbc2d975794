/**
 * `kubemix up --merge-kubeconfig`: copies the admin kubeconfig's cluster, user and context into a user's
 * kubeconfig (`~/.kube/config`) under the name `kubemix`, replacing entries of that name and leaving every
 * other entry, `current-context` and preferences as they were (as `kubectl config set-cluster/
 * set-credentials/set-context` would).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';

export const mergedName = 'kubemix';

type Fields = Record<string, unknown>;

function asRecord(v: unknown, what: string): Fields {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} is not a map`);
  return v as Fields;
}

function named(list: unknown, what: string): Fields[] {
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${what} is not a list`);
  return list.map((e, i) => asRecord(e, `${what}[${i}]`));
}

function currentEntry(doc: Fields, key: 'clusters' | 'users' | 'contexts', name: string, path: string): Fields {
  const e = named(doc[key], `${path}: ${key}`).find((x) => x['name'] === name);
  const inner = e?.[key.slice(0, -1)];
  if (inner === undefined) throw new Error(`${path}: no ${key.slice(0, -1)} "${name}"`);
  return asRecord(inner, `${path}: ${key}`);
}

function upsert(list: Fields[], key: string, entry: Fields): Fields[] {
  const out = list.filter((x) => x['name'] !== mergedName);
  out.push({ name: mergedName, [key]: entry });
  return out;
}

/**
 * Merges the current context of the kubeconfig at `sourcePath` into `targetPath` as cluster, user and
 * context `kubemix`. Creates the file (mode 0600) and its folder when missing.
 */
export function mergeKubeconfig(sourcePath: string, targetPath: string): void {
  const src = asRecord(parse(readFileSync(sourcePath, 'utf8')), sourcePath);
  const contextName = src['current-context'];
  if (typeof contextName !== 'string') throw new Error(`${sourcePath}: no current-context`);
  const context = currentEntry(src, 'contexts', contextName, sourcePath);
  const cluster = currentEntry(src, 'clusters', String(context['cluster']), sourcePath);
  const user = currentEntry(src, 'users', String(context['user']), sourcePath);

  const exists = existsSync(targetPath);
  const text = exists ? readFileSync(targetPath, 'utf8') : '';
  const doc: Fields = text.trim() === '' ? { apiVersion: 'v1', kind: 'Config', preferences: {} } : asRecord(parse(text), targetPath);
  doc['clusters'] = upsert(named(doc['clusters'], `${targetPath}: clusters`), 'cluster', cluster);
  doc['users'] = upsert(named(doc['users'], `${targetPath}: users`), 'user', user);
  doc['contexts'] = upsert(named(doc['contexts'], `${targetPath}: contexts`), 'context', {
    ...context,
    cluster: mergedName,
    user: mergedName,
  });
  mkdirSync(dirname(targetPath), { recursive: true, mode: 0o700 });
  writeFileSync(targetPath, stringify(doc), { mode: 0o600 });
  if (!exists) chmodSync(targetPath, 0o600);
}
