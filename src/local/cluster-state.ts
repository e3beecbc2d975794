/**
 * The running cluster's node groups, kept in the cluster itself: the ConfigMap `kube-system/kubemix-cluster`
 * holds the normalized cluster spec (every group with its explicit node names) and each node's index (which
 * fixes its InternalIP and pod CIDR for good). `kubemix up` writes it on a fresh data dir, reads it back on
 * resume and watches it; `kubemix nodes add|remove` changes it through the API, and the `up` process
 * reconciles its hosted nodes to it.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { expandCluster, internalIPForIndex, nodeNamesOf, podCIDRForIndex, type ClusterSpec, type NodeGroupSpec, type NodeSpec } from '../cluster/index.js';

export const clusterStateNamespace = 'kube-system';
export const clusterStateName = 'kubemix-cluster';
/** The ConfigMap key holding the state as JSON. */
export const clusterStateKey = 'cluster.json';

export interface ClusterState {
  /** The cluster's node groups; every group lists its node names explicitly. */
  readonly spec: ClusterSpec;
  /** Node name -> index (InternalIP `internalIPForIndex`, pod CIDR `podCIDRForIndex`); never reused. */
  readonly indexes: Readonly<Record<string, number>>;
}

/** The state of a freshly started cluster: the config's nodes, indexes in config order. */
export function stateFromSpec(spec: ClusterSpec): ClusterState {
  const indexes: Record<string, number> = {};
  for (const n of expandCluster(spec)) indexes[n.name] = n.index;
  return { spec: { ...spec, nodeGroups: spec.nodeGroups.map((g) => ({ ...g, names: nodeNamesOf(g) })) }, indexes };
}

/** Every node of the state, with its own index, InternalIP and pod CIDR. */
export function nodesOfState(state: ClusterState): NodeSpec[] {
  let next = Math.max(-1, ...Object.values(state.indexes)) + 1;
  return expandCluster(state.spec).map((n) => {
    const index = state.indexes[n.name] ?? next++;
    return { ...n, index, internalIP: internalIPForIndex(index), podCIDR: podCIDRForIndex(index) };
  });
}

export function clusterStateConfigMap(state: ClusterState): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: clusterStateName,
      namespace: clusterStateNamespace,
      labels: { 'app.kubernetes.io/managed-by': 'kubemix' },
    },
    data: { [clusterStateKey]: JSON.stringify(state) },
  };
}

export class ClusterStateError extends Error {}

/** Reads the state back from the ConfigMap; throws ClusterStateError when it is missing or malformed. */
export function decodeClusterState(cm: ConfigMap): ClusterState {
  const text = cm.data?.[clusterStateKey];
  if (text === undefined) throw new ClusterStateError(`ConfigMap ${clusterStateNamespace}/${clusterStateName} has no ${clusterStateKey}`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ClusterStateError(`ConfigMap ${clusterStateNamespace}/${clusterStateName}: ${clusterStateKey} is not JSON: ${(e as Error).message}`);
  }
  const s = v as Partial<ClusterState> | null;
  if (s === null || typeof s !== 'object' || typeof s.spec !== 'object' || !Array.isArray(s.spec.nodeGroups) || typeof s.indexes !== 'object') {
    throw new ClusterStateError(`ConfigMap ${clusterStateNamespace}/${clusterStateName}: ${clusterStateKey} is not a kubemix cluster state`);
  }
  return s as ClusterState;
}

/** What a scale changes: the new state and the node names it adds or removes. */
export interface ScaleResult {
  readonly state: ClusterState;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

function trailingNumber(name: string, prefix: string): number | undefined {
  if (!name.startsWith(`${prefix}-`)) return undefined;
  const rest = name.slice(prefix.length + 1);
  return /^[1-9][0-9]*$/.test(rest) ? Number(rest) : undefined;
}

/**
 * Adds `delta` nodes to a group (named `<group>-<n>`, continuing after the highest n in use) or removes
 * `-delta` (the most recently added, i.e. the last names). Throws ClusterStateError for an unknown group or
 * when removing more nodes than the group has.
 */
export function scaleGroup(state: ClusterState, group: string, delta: number): ScaleResult {
  const i = state.spec.nodeGroups.findIndex((g) => g.name === group);
  const g = state.spec.nodeGroups[i];
  if (g === undefined) {
    throw new ClusterStateError(`no node group "${group}"; the cluster's groups are: ${state.spec.nodeGroups.map((x) => x.name).join(', ')}`);
  }
  const names = nodeNamesOf(g);
  let added: string[] = [];
  let removed: string[] = [];
  const indexes: Record<string, number> = { ...state.indexes };
  if (delta >= 0) {
    const prefix = g.nodeNamePrefix ?? g.name;
    const taken = new Set(state.spec.nodeGroups.flatMap((x) => nodeNamesOf(x)));
    let n = Math.max(names.length, ...names.map((x) => trailingNumber(x, prefix) ?? 0));
    let nextIndex = Math.max(-1, ...Object.values(indexes)) + 1;
    while (added.length < delta) {
      const name = `${prefix}-${++n}`;
      if (taken.has(name)) continue;
      added.push(name);
      indexes[name] = nextIndex++;
    }
  } else {
    if (-delta > names.length) {
      throw new ClusterStateError(`node group "${group}" has ${names.length} node${names.length === 1 ? '' : 's'}; cannot remove ${-delta}`);
    }
    removed = names.slice(names.length + delta);
    added = [];
    for (const name of removed) delete indexes[name];
  }
  const keep = delta >= 0 ? names : names.slice(0, names.length + delta);
  const nextNames = [...keep, ...added];
  const updated: NodeGroupSpec = { ...g, count: nextNames.length, names: nextNames };
  const nodeGroups = state.spec.nodeGroups.map((x, j) => (j === i ? updated : x));
  return { state: { spec: { ...state.spec, nodeGroups }, indexes }, added, removed };
}
