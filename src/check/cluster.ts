/**
 * The cluster `kubemix check` simulates on: Node objects built exactly as `kubemix up` registers them
 * (from a cluster config or the default topology, plus the kube-system add-ons `kubemix up` installs), or
 * read from a live cluster (nodes, RuntimeClasses, PriorityClasses, namespaces, service accounts and the
 * pods already bound), read-only.
 */
import type { Namespace, Node, Pod, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { resources } from '../api/resources.js';
import type { Client, KubeObject } from '../client/client.js';
import { expandCluster, nodeObject, type ClusterSpec } from '../cluster/index.js';
import { kubeSystemAddons } from '../node/addons.js';
import type { ClusterSummary, NodeGroupSummary } from './types.js';

/** One node as check sees it: the Node object and the platform facts the runtime model needs. */
export interface SimNode {
  node: Node;
  name: string;
  /** `<os>/<arch>` or `<os>/<arch> <build>`. */
  group: string;
  os: string;
  arch: string;
  windowsBuild?: string;
  kernelVersion?: string;
}

export interface ClusterView {
  source: ClusterSummary['source'];
  name: string;
  nodes: SimNode[];
  /** Pods already bound to nodes (live cluster). */
  existingPods: Pod[];
  /** Objects the cluster starts with that go through the same simulation first (`kubemix up`'s add-ons). */
  bootstrapObjects: KubeObject[];
  runtimeClasses: RuntimeClass[];
  priorityClasses: PriorityClass[];
  /** Namespaces known to exist; check assumes any other namespace would be created with the release. */
  namespaces: Namespace[];
  serviceAccounts: ServiceAccount[];
}

export function groupKey(os: string, arch: string, windowsBuild: string | undefined): string {
  return `${os}/${arch}${windowsBuild !== undefined && windowsBuild !== '' ? ` ${windowsBuild}` : ''}`;
}

/** The simulated cluster of a cluster config (what `kubemix up --config` starts). */
export function clusterFromSpec(spec: ClusterSpec, source: 'default' | 'config'): ClusterView {
  const nodes = expandCluster(spec).map((n): SimNode => {
    const s: SimNode = { node: nodeObject(n), name: n.name, group: groupKey(n.os, n.arch, n.windowsBuild), os: n.os, arch: n.arch, kernelVersion: n.kernelVersion };
    if (n.windowsBuild !== undefined) s.windowsBuild = n.windowsBuild;
    return s;
  });
  return { source, name: spec.name, nodes, existingPods: [], bootstrapObjects: kubeSystemAddons(), runtimeClasses: [], priorityClasses: [], namespaces: [], serviceAccounts: [] };
}

/** A node of a live cluster: platform from `status.nodeInfo`, falling back to the well-known labels. */
export function simNodeOf(node: Node): SimNode {
  const labels = node.metadata?.labels ?? {};
  const os = node.status?.nodeInfo?.operatingSystem || labels['kubernetes.io/os'] || 'linux';
  const arch = node.status?.nodeInfo?.architecture || labels['kubernetes.io/arch'] || 'amd64';
  let build = labels['node.kubernetes.io/windows-build'];
  const kernel = node.status?.nodeInfo?.kernelVersion;
  if (os === 'windows' && build === undefined && kernel !== undefined) build = /^(\d+\.\d+\.\d+)/.exec(kernel)?.[1];
  const s: SimNode = { node, name: node.metadata?.name ?? '', group: groupKey(os, arch, os === 'windows' ? build : undefined), os, arch };
  if (os === 'windows' && build !== undefined) s.windowsBuild = build;
  if (kernel !== undefined && kernel !== '') s.kernelVersion = kernel;
  return s;
}

function isTerminal(p: Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

/** Reads a live cluster through `client` (list calls only). */
export async function clusterFromClient(client: Client, name: string): Promise<ClusterView> {
  const optional = async <T extends KubeObject>(res: (typeof resources)[keyof typeof resources]): Promise<T[]> => {
    try {
      return (await client.list<T>(res)).items;
    } catch {
      // Read-only users may not list everything; admission then sees these as absent.
      return [];
    }
  };
  const nodes = (await client.list<Node>(resources.nodes)).items;
  const pods = (await client.list<Pod>(resources.pods)).items.filter((p) => (p.spec?.nodeName ?? '') !== '' && !isTerminal(p));
  return {
    source: 'kubeconfig',
    name,
    nodes: nodes.map(simNodeOf),
    existingPods: pods,
    bootstrapObjects: [],
    runtimeClasses: await optional<RuntimeClass>(resources.runtimeclasses),
    priorityClasses: await optional<PriorityClass>(resources.priorityclasses),
    namespaces: await optional<Namespace>(resources.namespaces),
    serviceAccounts: await optional<ServiceAccount>(resources.serviceaccounts),
  };
}

/** Node groups in a stable order (as the nodes first appear). */
export function nodeGroups(nodes: readonly SimNode[]): NodeGroupSummary[] {
  const out = new Map<string, NodeGroupSummary>();
  for (const n of nodes) {
    let g = out.get(n.group);
    if (g === undefined) {
      g = { group: n.group, os: n.os, arch: n.arch, nodes: [] };
      if (n.windowsBuild !== undefined) g.windowsBuild = n.windowsBuild;
      out.set(n.group, g);
    }
    g.nodes.push(n.name);
  }
  return [...out.values()];
}
