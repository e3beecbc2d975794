/**
 * `kubemix up`: a whole cluster in one process, in the foreground until SIGINT/SIGTERM (exit 0).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { defaultCluster, isClusterConfigError, loadClusterConfig, type ClusterSpec, type NodeSpec } from '../cluster/index.js';
import { LocalCluster } from '../local/local-cluster.js';
import { mergeKubeconfig, mergedName } from '../local/merge-kubeconfig.js';
import { parseCommandFlags, parseServeFlags } from './_flags.js';
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
  --merge-kubeconfig       also merge cluster, user and context "kubemix" into $HOME/.kube/config
                           (other entries and the current context are left as they are)

A data dir that already holds a cluster resumes it with its stored node groups; change those on the
running cluster with 'kubemix nodes add|remove --group G --count N'.
`;

/** One line per OS/arch/build with its node count, e.g. `      2  windows/amd64 10.0.20348 (Windows Server 2022 Datacenter)`. */
export function groupSummary(nodes: readonly NodeSpec[]): string[] {
  const groups = new Map<string, number>();
  for (const n of nodes) {
    const key = `${n.os}/${n.arch}${n.windowsBuild !== undefined ? ` ${n.windowsBuild}` : ''} (${n.osImage})`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups.entries()].map(([k, v]) => `    ${String(v).padStart(5)}  ${k}`);
}

/** A live counter on a terminal, redrawn at most every 100 ms and always at the end; silent otherwise. */
export function progressCounter(out: { readonly isTTY?: boolean; write(s: string): unknown }): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    if (out.isTTY !== true) return;
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    out.write(`\r  registering nodes [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

export async function runUp(args: string[]): Promise<number> {
  const flags = parseCommandFlags({ command: 'kubemix up', help, stderr: (t) => process.stderr.write(t) }, args, {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    kubeconfig: { type: 'string' },
    store: { type: 'string' },
    'etcd-endpoints': { type: 'string' },
    'merge-kubeconfig': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true) {
    process.stdout.write(help);
    return 0;
  }
  const serve = parseServeFlags('up', v);
  if ('error' in serve) {
    process.stderr.write(`${serve.error}\n`);
    return 2;
  }
  const { port, store } = serve;
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
  const freshDataDir = !existsSync(dataDir);
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
  const cluster = new LocalCluster({
    spec,
    dataDir,
    port,
    store,
    ...(v.kubeconfig !== undefined ? { kubeconfigPath: resolve(v.kubeconfig) } : {}),
    onProgress: progressCounter(process.stderr),
    onNodesChanged: ({ added, removed }) => {
      if (added.length > 0) process.stdout.write(`kubemix: added node${added.length === 1 ? '' : 's'} ${added.join(', ')}\n`);
      if (removed.length > 0) process.stdout.write(`kubemix: drained and removed node${removed.length === 1 ? '' : 's'} ${removed.join(', ')}\n`);
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
  // Signals during start stop the cluster as soon as it is up.
  let signalled = false;
  let onSignal: () => void = () => {
    signalled = true;
  };
  const handler = (): void => onSignal();
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    try {
      await cluster.start();
    } catch (e) {
      await stop();
      // Nothing of a cluster that never started is kept.
      if (freshDataDir) rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
    const kubeconfig = cluster.kubeconfigPath;
    let merged: string | undefined;
    if (v['merge-kubeconfig'] === true) {
      merged = join(process.env['HOME'] ?? homedir(), '.kube', 'config');
      mergeKubeconfig(kubeconfig, merged);
    }
    const nodes = cluster.nodes;
    process.stdout.write(
      [
        `kubemix: cluster "${cluster.spec.name}" is ${cluster.resumed ? 'up again (resumed from its data dir)' : 'up'}`,
        ...(cluster.resumed && v.config !== undefined ? [`  note: the data dir holds this cluster's node groups; --config ${v.config} was not applied (use kubemix nodes add|remove)`] : []),
        `  API server:  ${cluster.url()}`,
        `  kubeconfig:  ${kubeconfig}`,
        `  Use it with:  export KUBECONFIG=${kubeconfig}`,
        ...(merged !== undefined ? [`  merged into ${merged} as context "${mergedName}" (kubectl config use-context ${mergedName})`] : []),
        `  nodes: ${nodes.length}`,
        ...groupSummary(nodes),
        `  data dir:    ${dataDir}`,
        'Press Ctrl-C to stop (the cluster is kept in the data dir and resumes on the next `kubemix up`).',
        '',
      ].join('\n'),
    );
    if (!signalled) {
      await new Promise<void>((resolveSignal) => {
        onSignal = resolveSignal;
      });
    }
    process.stdout.write('kubemix: stopping\n');
    await stop();
    process.stdout.write('kubemix: stopped; the cluster is kept in its data dir\n');
    return 0;
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}
