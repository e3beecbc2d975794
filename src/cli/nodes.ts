/**
 * `kubemix nodes add|remove --group G --count N`: changes the node groups of a cluster `kubemix up` runs,
 * from another process, through the API: it updates the ConfigMap `kube-system/kubemix-cluster` (with
 * optimistic concurrency) and waits while the `up` process reconciles (new nodes register and become Ready;
 * removed nodes are drained, then their Node objects deleted). `kubemix nodes list` shows the groups.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigMap, Node } from 'kubernetes-types/core/v1.js';
import { isConflict, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client } from '../client/client.js';
import { httpClientFromKubeconfig } from '../client/kubeconfig.js';
import { nodeNamesOf } from '../cluster/index.js';
import {
  ClusterStateError,
  clusterStateKey,
  clusterStateName,
  clusterStateNamespace,
  decodeClusterState,
  nodesOfState,
  scaleGroup,
} from '../local/cluster-state.js';
import { parseCommandFlags } from './_flags.js';

const help = `Change the node groups of a running 'kubemix up' cluster.

Usage:
  kubemix nodes add --group G --count N [flags]      add N nodes to group G (named <group>-<n>, continuing)
  kubemix nodes remove --group G --count N [flags]   drain and remove the group's N most recently added nodes
  kubemix nodes list [flags]                         the node groups and their nodes

Flags:
  --group G            the node group (as named in the cluster config)
  --count N            how many nodes (a positive integer)
  --kubeconfig FILE    the admin kubeconfig (default $KUBECONFIG, else <data-dir>/admin.conf)
  --data-dir DIR       the cluster's data dir (default ~/.kubemix/kubemix)
  --timeout DURATION   how long to wait for the change (default 5m; 0 does not wait)
`;

function parseDuration(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s);
  if (m === null) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const isReady = (n: Node): boolean => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

async function readState(client: Client): Promise<ConfigMap> {
  try {
    return await client.get<ConfigMap>(resources.configmaps, clusterStateName, { namespace: clusterStateNamespace });
  } catch (e) {
    if (isNotFound(e)) {
      throw new ClusterStateError(
        `this cluster has no ConfigMap ${clusterStateNamespace}/${clusterStateName}: its node groups are not managed by 'kubemix up'`,
      );
    }
    throw e;
  }
}

export async function runNodes(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(help);
    return verb === undefined ? 2 : 0;
  }
  if (verb !== 'add' && verb !== 'remove' && verb !== 'list') {
    process.stderr.write(`kubemix nodes: unknown command "${verb}"\n\n${help}`);
    return 2;
  }
  const flags = parseCommandFlags({ command: `kubemix nodes ${verb}`, help, stderr: (t) => process.stderr.write(t) }, rest, {
    group: { type: 'string' },
    count: { type: 'string' },
    kubeconfig: { type: 'string' },
    'data-dir': { type: 'string' },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true) {
    process.stdout.write(help);
    return 0;
  }
  const usage = (msg: string): number => {
    process.stderr.write(`kubemix nodes ${verb}: ${msg}\n`);
    return 2;
  };
  const timeoutMs = parseDuration(v.timeout ?? '5m');
  if (timeoutMs === undefined) return usage(`--timeout: invalid duration "${v.timeout ?? ''}" (e.g. 90s, 5m)`);
  let count = 0;
  if (verb !== 'list') {
    if (v.group === undefined || v.group === '') return usage('--group is required');
    if (v.count === undefined) return usage('--count is required');
    count = Number(v.count);
    if (!/^[1-9][0-9]*$/.test(v.count) || !Number.isSafeInteger(count)) return usage(`--count: must be a positive integer, not "${v.count}"`);
  }
  const kubeconfig = resolve(
    v.kubeconfig ?? process.env['KUBECONFIG']?.split(':').find((p) => p !== '') ?? join(v['data-dir'] ?? join(homedir(), '.kubemix', 'kubemix'), 'admin.conf'),
  );
  let client: Client;
  try {
    client = httpClientFromKubeconfig(kubeconfig);
  } catch (e) {
    process.stderr.write(`kubemix nodes ${verb}: cannot use kubeconfig ${kubeconfig}: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    if (verb === 'list') {
      const state = decodeClusterState(await readState(client));
      const byGroup = new Map<string, string[]>();
      for (const n of nodesOfState(state)) byGroup.set(n.group, [...(byGroup.get(n.group) ?? []), n.name]);
      const rows = state.spec.nodeGroups.map((g) => {
        const n = nodesOfState({ spec: { ...state.spec, nodeGroups: [g] }, indexes: state.indexes })[0];
        const kind = n === undefined ? `${g.os}/${g.arch}` : `${n.os}/${n.arch}${n.windowsBuild !== undefined ? ` ${n.windowsBuild}` : ''}`;
        return [g.name, String(nodeNamesOf(g).length), kind, (byGroup.get(g.name) ?? []).join(',')];
      });
      const table = [['GROUP', 'COUNT', 'PLATFORM', 'NODES'], ...rows];
      const widths = [0, 1, 2].map((i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
      for (const r of table) process.stdout.write(`${r.map((c, i) => (i < 3 ? c.padEnd((widths[i] ?? 0) + 3) : c)).join('')}\n`);
      return 0;
    }
    const group = v.group ?? '';
    const delta = verb === 'add' ? count : -count;
    let added: readonly string[] = [];
    let removed: readonly string[] = [];
    for (let attempt = 0; ; attempt++) {
      const cm = await readState(client);
      const result = scaleGroup(decodeClusterState(cm), group, delta);
      ({ added, removed } = result);
      try {
        await client.update<ConfigMap>(resources.configmaps, {
          ...cm,
          data: { ...cm.data, [clusterStateKey]: JSON.stringify(result.state) },
        });
        break;
      } catch (e) {
        if (!isConflict(e) || attempt >= 10) throw e;
      }
    }
    const names = [...added, ...removed];
    process.stdout.write(`${verb === 'add' ? 'adding' : 'draining and removing'} ${names.length} node${names.length === 1 ? '' : 's'} of group ${group}: ${names.join(', ')}\n`);
    if (timeoutMs === 0) return 0;
    const deadline = Date.now() + timeoutMs;
    const pending = new Set(names);
    while (pending.size > 0) {
      for (const name of [...pending]) {
        try {
          const node = await client.get<Node>(resources.nodes, name);
          if (verb === 'add' && isReady(node)) {
            pending.delete(name);
            process.stdout.write(`node/${name} Ready\n`);
          }
        } catch (e) {
          if (!isNotFound(e)) throw e;
          if (verb === 'remove') {
            pending.delete(name);
            process.stdout.write(`node/${name} removed\n`);
          }
        }
      }
      if (pending.size === 0) break;
      if (Date.now() > deadline) {
        process.stderr.write(
          `kubemix nodes ${verb}: timed out after ${v.timeout ?? '5m'} waiting for ${[...pending].join(', ')} (is 'kubemix up' still running? the change stays requested)\n`,
        );
        return 1;
      }
      await sleep(Math.min(500, Math.max(50, deadline - Date.now())));
    }
    return 0;
  } catch (e) {
    if (e instanceof ClusterStateError) {
      process.stderr.write(`kubemix nodes ${verb}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
