/**
 * `kubemix up`: a whole cluster in one process, in the foreground until SIGINT/SIGTERM (exit 0).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { defaultCluster, isClusterConfigError, loadClusterConfig, type ClusterSpec, type NodeSpec } from '../cluster/index.js';
import { LocalCluster } from '../local/local-cluster.js';
import { parseFlags, UsageError } from './_flags.js';
import { lockDataDir, DataDirInUse } from './_lock.js';

const help = `Start a whole heterogeneous cluster in this process.

Usage:
  kubemix up [flags]

Flags:
  --config FILE            cluster config (kubemix.dev/v1alpha1 Cluster or eksctl ClusterConfig); default topology when absent
  --data-dir DIR           where the cluster lives (default ~/.kubemix/<cluster name>); starting again resumes it
  --port N                 API server port on 127.0.0.1 (default 6443; 0 picks a free port)
  --kubeconfig FILE        where to write the admin kubeconfig (default <data-dir>/admin.conf)
  --store sqlite|etcd      storage backend (default sqlite)
  --etcd-endpoints URLS    etcd client URLs, comma-separated (with --store etcd)
`;

function groupSummary(nodes: readonly NodeSpec[]): string[] {
  const groups = new Map<string, number>();
  for (const n of nodes) {
    const key = `${n.os}/${n.arch}${n.windowsBuild !== undefined ? ` ${n.windowsBuild}` : ''} (${n.osImage})`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups.entries()].map(([k, v]) => `    ${String(v).padStart(5)}  ${k}`);
}

export async function runUp(args: string[]): Promise<number> {
  let flags;
  try {
    flags = parseFlags(args, {
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      store: { type: 'string' },
      'etcd-endpoints': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`kubemix up: ${e.message}\n\n${help}`);
      return 2;
    }
    throw e;
  }
  const v = flags.values;
  if (v.help === true) {
    process.stdout.write(help);
    return 0;
  }
  const port = v.port === undefined ? 6443 : Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`kubemix up: --port: invalid port "${v.port ?? ''}"\n`);
    return 2;
  }
  const storeKind = v.store ?? 'sqlite';
  if (storeKind !== 'sqlite' && storeKind !== 'etcd') {
    process.stderr.write(`kubemix up: --store: must be sqlite or etcd, not "${storeKind}"\n`);
    return 2;
  }
  const endpoints = (v['etcd-endpoints'] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (storeKind === 'etcd' && endpoints.length === 0) {
    process.stderr.write('kubemix up: --store etcd needs --etcd-endpoints\n');
    return 2;
  }
  let spec: ClusterSpec;
  try {
    spec = v.config !== undefined ? await loadClusterConfig(v.config) : defaultCluster();
  } catch (e) {
    if (isClusterConfigError(e)) {
      process.stderr.write(`kubemix up: invalid cluster config:\n${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const dataDir = resolve(v['data-dir'] ?? join(homedir(), '.kubemix', spec.name));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirInUse) {
      process.stderr.write(`kubemix up: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const tty = process.stderr.isTTY;
  const cluster = new LocalCluster({
    spec,
    dataDir,
    port,
    store: storeKind === 'etcd' ? { kind: 'etcd', endpoints } : { kind: 'sqlite' },
    ...(v.kubeconfig !== undefined ? { kubeconfigPath: resolve(v.kubeconfig) } : {}),
    onProgress: (done, total) => {
      if (tty) process.stderr.write(`\r  registering nodes: ${done}/${total}${done === total ? '\n' : ''}`);
    },
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await cluster.stop();
      unlock();
    })();
    return stopping;
  };
  try {
    await cluster.start();
  } catch (e) {
    await stop();
    throw e;
  }
  const kubeconfig = cluster.kubeconfigPath;
  process.stdout.write(
    [
      `kubemix: cluster "${spec.name}" is up`,
      `  API server:  ${cluster.url()}`,
      `  kubeconfig:  ${kubeconfig}`,
      `  Use it with:  export KUBECONFIG=${kubeconfig}`,
      `  nodes: ${cluster.nodes.length}`,
      ...groupSummary(cluster.nodes),
      `  data dir:    ${dataDir}`,
      'Press Ctrl-C to stop (the cluster is kept in the data dir and resumes on the next `kubemix up`).',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolveSignal) => {
    const onSignal = (): void => resolveSignal();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  process.stdout.write('kubemix: stopping\n');
  await stop();
  return 0;
}
