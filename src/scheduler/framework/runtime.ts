/**
 * `frameworkImpl` (pkg/scheduler/framework/runtime/framework.go): instantiates a profile's plugins and
 * runs each extension point in profile order with upstream's rules (Skip bookkeeping, first failing
 * filter wins, nominated pods evaluated twice, score normalisation and weights).
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Labels, Selector } from '../../api/labels.js';
import { podPriority } from './corev1.js';
import { CycleState } from './cycle-state.js';
import {
  isBindPlugin,
  isEnqueueExtensions,
  isFilterPlugin,
  isNodeObjectFilterPlugin,
  isPositionFilterPlugin,
  isPermitPlugin,
  isPostBindPlugin,
  isPostFilterPlugin,
  isPreBindPlugin,
  isPreEnqueuePlugin,
  isPreFilterPlugin,
  isPreScorePlugin,
  isQueueSortPlugin,
  isReservePlugin,
  isScorePlugin,
  maxNodeScore,
  minNodeScore,
  type ApiActions,
  type BindPlugin,
  type ClusterEventWithHint,
  type FilterPlugin,
  type Handle,
  type NodeInfoLister,
  type NodeScore,
  type NodeToStatusReader,
  type PermitPlugin,
  type Plugin,
  type PostBindPlugin,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreBindPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueueSortPlugin,
  type ReservePlugin,
  type ScorePlugin,
  type SpreadingSelectorSource,
  type VolumeLister,
} from './interfaces.js';
import type { Profile } from './profile.js';
import { NodeVerdicts } from './node-verdicts.js';
import { Lru } from '../../util/lru.js';
import type { Registry } from './registry.js';
import { Code, ScoreFailure, Status, newStatus } from './status.js';
import type { NodeInfo, PodInfo } from './types.js';

/** `RunScorePlugins`' answer when a plugin's Score or NormalizeScore failed. */
function scoreFailed(plugin: string, s: Status): { scores: NodePluginScores[]; status: Status } {
  return { scores: [], status: Status.error(`plugin "${plugin}" failed with: ${s.message()}`) };
}

/** Where the framework gets pods nominated by preemption. */
export interface Nominator {
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  /** False when no pod is nominated to any node; optional (then every node is asked). */
  hasNominatedPods?(): boolean;
}

/** Read access to namespaces (for namespaceSelector in pod affinity). */
export interface NamespaceLister {
  labels(namespace: string): Labels;
  matching(selector: Selector): string[];
}

export interface FrameworkOptions {
  registry: Registry;
  profile: Profile;
  /** Uniform random in [0, 1); default Math.random. */
  random?: () => number;
  nominator?: Nominator;
  namespaces?: NamespaceLister;
  spreadingSelectorSource?: SpreadingSelectorSource;
  apiActions?: ApiActions;
  volumeLister?: VolumeLister;
}

/** Per-node total of weighted, normalised scores. */
export interface NodePluginScores {
  name: string;
  totalScore: number;
}

const emptySnapshot: NodeInfoLister = {
  list: () => [],
  havePodsWithAffinityList: () => [],
  havePodsWithRequiredAntiAffinityList: () => [],
  get: () => undefined,
};

export class Framework implements Handle {
  readonly schedulerName: string;
  readonly percentageOfNodesToScore: number | undefined;
  readonly plugins: Plugin[] = [];
  readonly queueSortPlugin: QueueSortPlugin | undefined;
  readonly preEnqueuePlugins: PreEnqueuePlugin[] = [];
  readonly preFilterPlugins: PreFilterPlugin[] = [];
  readonly filterPlugins: FilterPlugin[] = [];
  readonly postFilterPlugins: PostFilterPlugin[] = [];
  readonly preScorePlugins: PreScorePlugin[] = [];
  readonly scorePlugins: { plugin: ScorePlugin; weight: number }[] = [];
  readonly reservePlugins: ReservePlugin[] = [];
  readonly permitPlugins: PermitPlugin[] = [];
  readonly preBindPlugins: PreBindPlugin[] = [];
  readonly bindPlugins: BindPlugin[] = [];
  readonly postBindPlugins: PostBindPlugin[] = [];
  readonly enqueueExtensions: { pluginName: string; events: ClusterEventWithHint[] }[] = [];
  private currentSnapshot: NodeInfoLister = emptySnapshot;
  private readonly rand: () => number;
  private nominator: Nominator | undefined;
  private readonly namespaces: NamespaceLister | undefined;
  private readonly spreading: SpreadingSelectorSource | undefined;
  private actions: ApiActions | undefined;
  private readonly volumes: VolumeLister | undefined;
  /**
   * Verdicts of the leading node-object filters by question key (see node-verdicts.ts): a few per workload
   * shape (tolerations, node selector and affinity), about 80 KB each at 5,000 nodes.
   */
  private readonly nodeVerdicts = new Lru<NodeVerdicts>(64);
  private readonly spareScoreList: NodeScore[] = [];
  private readonly spareTotals: NodePluginScores[] = [];

  constructor(opts: FrameworkOptions) {
    this.schedulerName = opts.profile.schedulerName;
    this.percentageOfNodesToScore = opts.profile.percentageOfNodesToScore;
    this.rand = opts.random ?? Math.random;
    this.nominator = opts.nominator;
    this.namespaces = opts.namespaces;
    this.spreading = opts.spreadingSelectorSource;
    this.actions = opts.apiActions;
    this.volumes = opts.volumeLister;
    const seen = new Set<string>();
    let queueSort: QueueSortPlugin | undefined;
    for (const spec of opts.profile.plugins) {
      if (seen.has(spec.name)) throw new Error(`plugin ${spec.name} already registered in profile ${this.schedulerName}`);
      seen.add(spec.name);
      const factory = opts.registry.get(spec.name);
      if (factory === undefined) throw new Error(`plugin ${spec.name} does not exist`);
      const p = factory(spec.args, this);
      this.plugins.push(p);
      if (isQueueSortPlugin(p)) queueSort ??= p;
      if (isPreEnqueuePlugin(p)) this.preEnqueuePlugins.push(p);
      if (isPreFilterPlugin(p)) this.preFilterPlugins.push(p);
      if (isFilterPlugin(p)) this.filterPlugins.push(p);
      if (isPostFilterPlugin(p)) this.postFilterPlugins.push(p);
      if (isPreScorePlugin(p)) this.preScorePlugins.push(p);
      if (isScorePlugin(p)) this.scorePlugins.push({ plugin: p, weight: spec.weight ?? 1 });
      if (isReservePlugin(p)) this.reservePlugins.push(p);
      if (isPermitPlugin(p)) this.permitPlugins.push(p);
      if (isPreBindPlugin(p)) this.preBindPlugins.push(p);
      if (isBindPlugin(p)) this.bindPlugins.push(p);
      if (isPostBindPlugin(p)) this.postBindPlugins.push(p);
      if (isEnqueueExtensions(p)) this.enqueueExtensions.push({ pluginName: p.name, events: p.eventsToRegister() });
    }
    this.queueSortPlugin = queueSort;
  }

  // ---- Handle ----

  snapshot(): NodeInfoLister {
    return this.currentSnapshot;
  }
  /** Called by the scheduling algorithm at the start of each cycle. */
  setSnapshot(s: NodeInfoLister): void {
    this.currentSnapshot = s;
  }
  setNominator(n: Nominator | undefined): void {
    this.nominator = n;
  }
  setApiActions(a: ApiActions | undefined): void {
    this.actions = a;
  }
  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.nominator?.nominatedPodsForNode(nodeName) ?? [];
  }
  namespaceLabels(namespace: string): Labels {
    return this.namespaces?.labels(namespace);
  }
  namespacesMatching(selector: Selector): string[] {
    return this.namespaces?.matching(selector) ?? [];
  }
  spreadingSelectorSource(): SpreadingSelectorSource | undefined {
    return this.spreading;
  }
  random(): number {
    return this.rand();
  }
  apiActions(): ApiActions | undefined {
    return this.actions;
  }
  volumeLister(): VolumeLister | undefined {
    return this.volumes;
  }

  hasFilterPlugins(): boolean {
    return this.filterPlugins.length > 0;
  }
  hasPostFilterPlugins(): boolean {
    return this.postFilterPlugins.length > 0;
  }
  hasScorePlugins(): boolean {
    return this.scorePlugins.length > 0;
  }

  // ---- extension points ----

  runPreEnqueuePlugins(pod: Pod): Status {
    for (const p of this.preEnqueuePlugins) {
      const s = p.preEnqueue(pod);
      if (!s.isSuccess()) return s.withPlugin(p.name);
    }
    return Status.success();
  }

  /**
   * `RunPreFilterPlugins`: Skip marks the plugin's Filter as skipped; results are intersected; a rejection
   * stops the run. `pluginsWithNodes` names the plugins that narrowed the node set.
   */
  runPreFilterPlugins(state: CycleState, pod: Pod): { result: PreFilterResult | undefined; status: Status; unschedulablePlugins: Set<string> } {
    let result: PreFilterResult | undefined;
    const pluginsWithNodes: string[] = [];
    const skip = new Set<string>();
    for (const p of this.preFilterPlugins) {
      const { result: r, status: s } = p.preFilter(state, pod);
      if (s.isSkip()) {
        skip.add(p.name);
        continue;
      }
      if (!s.isSuccess()) {
        const withPlugin = s.withPlugin(p.name);
        if (s.isRejected()) return { result: undefined, status: withPlugin, unschedulablePlugins: new Set([p.name]) };
        return { result: undefined, status: Status.error(`running PreFilter plugin "${p.name}": ${s.message()}`).withPlugin(p.name), unschedulablePlugins: new Set() };
      }
      if (r !== undefined && r.nodeNames !== undefined) {
        pluginsWithNodes.push(p.name);
        result = mergePreFilterResults(result, r);
        if (result.nodeNames !== undefined && result.nodeNames.size === 0) {
          const msg = pluginsWithNodes.length === 1 ? `node(s) didn't satisfy plugin ${pluginsWithNodes[0] ?? ''}` : `node(s) didn't satisfy plugin(s) [${pluginsWithNodes.join(' ')}] simultaneously`;
          return { result: undefined, status: newStatus(Code.UnschedulableAndUnresolvable, msg), unschedulablePlugins: new Set(pluginsWithNodes) };
        }
      }
    }
    state.skipFilterPlugins = skip;
    const toRun = skip.size === 0 ? this.filterPlugins : this.filterPlugins.filter((p) => !skip.has(p.name));
    state.filterPluginsToRun = toRun;
    this.prepareNodeVerdicts(state, pod, toRun, result?.nodeNames !== undefined);
    return { result, status: Status.success(), unschedulablePlugins: new Set(pluginsWithNodes) };
  }

  /**
   * Finds the leading node-object filters of the cycle and the verdicts for their question. A PreFilter
   * result that names the nodes (a DaemonSet pod's node affinity on `metadata.name`) leaves a few nodes to
   * filter, and its question is asked by no other pod: storing verdicts for every snapshot position would
   * cost more than it saves and push the questions that recur out of the LRU.
   */
  private prepareNodeVerdicts(state: CycleState, pod: Pod, toRun: readonly FilterPlugin[], nodesNamed: boolean): void {
    let key = '';
    let n = 0;
    for (; n < toRun.length; n++) {
      const p = toRun[n] as FilterPlugin;
      if (!isNodeObjectFilterPlugin(p)) break;
      if (!nodesNamed) key += `${p.name}\u0000${p.nodeObjectFilterKey(state, pod)}\u0001`;
    }
    state.nodeObjectFilterCount = n;
    if (n === 0 || nodesNamed) {
      state.nodeVerdicts = undefined;
      return;
    }
    const v = this.nodeVerdicts.getOrCreate(key, () => new NodeVerdicts());
    v.reserve(this.currentSnapshot.list().length);
    state.nodeVerdicts = v;
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status {
    for (const p of this.preFilterPlugins) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      const ext = p.preFilterExtensions?.();
      if (ext === undefined) continue;
      const s = ext.addPod(state, podToSchedule, podInfoToAdd, nodeInfo);
      if (!s.isSuccess()) return Status.error(`running AddPod on PreFilter plugin "${p.name}": ${s.message()}`);
    }
    return Status.success();
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status {
    for (const p of this.preFilterPlugins) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      const ext = p.preFilterExtensions?.();
      if (ext === undefined) continue;
      const s = ext.removePod(state, podToSchedule, podInfoToRemove, nodeInfo);
      if (!s.isSuccess()) return Status.error(`running RemovePod on PreFilter plugin "${p.name}": ${s.message()}`);
    }
    return Status.success();
  }

  /**
   * `RunFilterPlugins`: stops at the first plugin that does not succeed and records it. The leading
   * node-object filters' verdict comes from `state.nodeVerdicts` when it was computed for this node object
   * (a snapshot NodeInfo only; errors are never stored).
   */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const skip = state.skipFilterPlugins;
    const toRun = state.filterPluginsToRun as readonly FilterPlugin[] | undefined;
    const plugins = toRun ?? this.filterPlugins;
    let from = 0;
    const verdicts = toRun === undefined ? undefined : state.nodeVerdicts;
    const node = nodeInfo.node;
    if (verdicts !== undefined && node !== undefined && nodeInfo.snapshotIndex >= 0) {
      const at = nodeInfo.snapshotIndex;
      let v = verdicts.get(at, node);
      if (v === undefined) {
        v = this.runFilterPluginRange(state, pod, nodeInfo, plugins, 0, state.nodeObjectFilterCount);
        if (v.code === Code.Error) return v;
        verdicts.set(at, node, this.currentSnapshot.table?.genOf(nodeInfo) ?? 0, v);
      }
      if (!v.isSuccess()) return v;
      from = state.nodeObjectFilterCount;
    } else if (toRun === undefined) {
      for (let i = 0; i < plugins.length; i++) {
        const p = plugins[i] as FilterPlugin;
        if (skip.has(p.name)) continue;
        const s = p.filter(state, pod, nodeInfo);
        if (!s.isSuccess()) return filterFailure(p, s);
      }
      return Status.success();
    }
    return this.runFilterPluginRange(state, pod, nodeInfo, plugins, from, plugins.length);
  }

  /**
   * This cycle's filters as one judge by position in the snapshot's list, for the filter loop: it answers
   * what `runFilterPluginsWithNominatedPods` would for `nodes[i]`, reading the node table's columns and the
   * node-object verdicts instead of the NodeInfo. Undefined (use that method) unless `nodes` is the table's
   * list, no pod is nominated, node-object verdicts lead and every filter after them judges by position.
   */
  filterByPosition(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): ((i: number) => Status) | undefined {
    const table = this.currentSnapshot.table;
    const verdicts = state.nodeVerdicts;
    const plugins = state.filterPluginsToRun as readonly FilterPlugin[] | undefined;
    if (table === undefined || table.list !== nodes || verdicts === undefined || plugins === undefined) return undefined;
    if (this.nominator !== undefined && this.nominator.hasNominatedPods?.() !== false) return undefined;
    const leading = state.nodeObjectFilterCount;
    const rest: Array<(i: number) => Status> = [];
    for (let k = leading; k < plugins.length; k++) {
      const p = plugins[k] as FilterPlugin;
      const judge = isPositionFilterPlugin(p) ? p.positionFilter(state, pod, table) : undefined;
      if (judge === undefined) return undefined;
      rest.push(judge);
    }
    const gens = table.objectGen;
    return (i) => {
      const gen = gens[i] as number;
      let v = verdicts.atGen(i, gen);
      if (v === undefined) {
        const ni = nodes[i] as NodeInfo;
        v = this.runFilterPluginRange(state, pod, ni, plugins, 0, leading);
        if (v.code === Code.Error) return v;
        verdicts.set(i, ni.node as Node, gen, v);
      }
      if (!v.isSuccess()) return v;
      for (let k = 0; k < rest.length; k++) {
        const s = (rest[k] as (i: number) => Status)(i);
        if (!s.isSuccess()) return filterFailure(plugins[leading + k] as FilterPlugin, s);
      }
      return v;
    };
  }

  private runFilterPluginRange(state: CycleState, pod: Pod, nodeInfo: NodeInfo, plugins: readonly FilterPlugin[], from: number, to: number): Status {
    for (let i = from; i < to; i++) {
      const p = plugins[i] as FilterPlugin;
      const s = p.filter(state, pod, nodeInfo);
      if (!s.isSuccess()) return filterFailure(p, s);
    }
    return Status.success();
  }

  /**
   * `RunFilterPluginsWithNominatedPods`: when pods of equal or higher priority are nominated to the node,
   * filters run once with them added and, if that passes, once more without them.
   */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    if (this.nominator === undefined || this.nominator.hasNominatedPods?.() === false) return this.runFilterPlugins(state, pod, nodeInfo);
    let status = Status.success();
    let podsAdded = false;
    for (let i = 0; i < 2; i++) {
      let stateToUse = state;
      let nodeInfoToUse = nodeInfo;
      if (i === 0) {
        const added = this.addGENominatedPods(state, pod, nodeInfo);
        if (added.error !== undefined) return added.error;
        podsAdded = added.podsAdded;
        stateToUse = added.state;
        nodeInfoToUse = added.nodeInfo;
      } else if (!podsAdded || !status.isSuccess()) {
        break;
      }
      status = this.runFilterPlugins(stateToUse, pod, nodeInfoToUse);
      if (!status.isSuccess() && !status.isRejected()) return status;
    }
    return status;
  }

  private addGENominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { podsAdded: boolean; state: CycleState; nodeInfo: NodeInfo; error?: Status } {
    const nominated = this.nominatedPodsForNode(nodeInfo.name);
    if (nominated.length === 0) return { podsAdded: false, state, nodeInfo };
    const prio = podPriority(pod);
    const uid = pod.metadata?.uid;
    let nodeInfoOut: NodeInfo | undefined;
    let stateOut: CycleState | undefined;
    for (const pi of nominated) {
      if (podPriority(pi.pod) >= prio && pi.pod.metadata?.uid !== uid) {
        nodeInfoOut ??= nodeInfo.snapshot();
        stateOut ??= state.clone();
        nodeInfoOut.addPodInfo(pi);
        const s = this.runPreFilterExtensionAddPod(stateOut, pod, pi, nodeInfoOut);
        if (!s.isSuccess()) return { podsAdded: false, state, nodeInfo, error: s };
      }
    }
    if (nodeInfoOut === undefined || stateOut === undefined) return { podsAdded: false, state, nodeInfo };
    return { podsAdded: true, state: stateOut, nodeInfo: nodeInfoOut };
  }

  /** `RunPostFilterPlugins`: the first success wins; rejections' reasons are collected. */
  runPostFilterPlugins(state: CycleState, pod: Pod, m: NodeToStatusReader): { result: PostFilterResult | undefined; status: Status } {
    const reasons: string[] = [];
    let rejector = '';
    let result: PostFilterResult | undefined;
    for (const p of this.postFilterPlugins) {
      const { result: r, status: s } = p.postFilter(state, pod, m);
      if (s.isSuccess()) return { result: r, status: s };
      if (!s.isRejected()) return { result: r, status: s.withPlugin(p.name) };
      reasons.push(...s.reasons());
      if (rejector === '') rejector = p.name;
      if (r !== undefined && r.nominatingInfo !== undefined && r.nominatingInfo.mode === 'Override') result = r;
      else result ??= r;
    }
    return { result, status: newStatus(Code.Unschedulable, ...reasons).withPlugin(rejector) };
  }

  runPreScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): Status {
    const skip = new Set<string>();
    for (const p of this.preScorePlugins) {
      const s = p.preScore(state, pod, nodes);
      if (s.isSkip()) {
        skip.add(p.name);
        continue;
      }
      if (!s.isSuccess()) return Status.error(`running PreScore plugin "${p.name}": ${s.message()}`).withPlugin(p.name);
    }
    state.skipScorePlugins = skip;
    return Status.success();
  }

  /**
   * Fills the NodeScore list (rewritten for each plugin; normalisation works on it in place) and the totals
   * list for the nodes. Both are kept for the next cycle: scoring runs for every pod, and would otherwise
   * allocate two entries per node (500 at 5,000 nodes) every cycle.
   */
  private resetScoreLists(nodes: readonly NodeInfo[], names: readonly string[] | undefined, positions: Int32Array | undefined): void {
    const list = this.spareScoreList;
    const totals = this.spareTotals;
    for (let i = 0; i < nodes.length; i++) {
      const name = names !== undefined && positions !== undefined ? (names[positions[i] as number] as string) : (nodes[i] as NodeInfo).name;
      const ns = list[i];
      if (ns === undefined) list.push({ name, score: 0 });
      else ns.name = name;
      const t = totals[i];
      if (t === undefined) totals.push({ name, totalScore: 0 });
      else {
        t.name = name;
        t.totalScore = 0;
      }
    }
    list.length = nodes.length;
    totals.length = nodes.length;
  }

  /**
   * `RunScorePlugins`: score, normalise, check the range, multiply by weight, sum per node. The scores
   * returned are valid until the next call: the list is reused, as scoring 500 nodes for every pod would
   * otherwise allocate 500 entries per cycle.
   */
  runScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { scores: NodePluginScores[]; status: Status } {
    // Positions of this very list, in the table of the current snapshot: the scorers may read columns.
    const table = this.currentSnapshot.table;
    const positions = table !== undefined ? state.positionsOf(nodes.length) : undefined;
    this.resetScoreLists(nodes, table?.names, positions);
    const totals = this.spareTotals;
    const list = this.spareScoreList;
    const skip = state.skipScorePlugins;
    for (const { plugin, weight } of this.scorePlugins) {
      if (skip.has(plugin.name)) continue;
      if (plugin.scoreValue !== undefined) {
        try {
          const done = positions !== undefined && table !== undefined && plugin.scorePositions?.(state, pod, table, positions, list) === true;
          if (!done) for (let i = 0; i < nodes.length; i++) (list[i] as NodeScore).score = plugin.scoreValue(state, pod, nodes[i] as NodeInfo);
        } catch (e) {
          if (!(e instanceof ScoreFailure)) throw e;
          return scoreFailed(plugin.name, e.status);
        }
      } else {
        for (let i = 0; i < nodes.length; i++) {
          const r = plugin.score(state, pod, nodes[i] as NodeInfo);
          if (!r.status.isSuccess()) return scoreFailed(plugin.name, r.status);
          (list[i] as NodeScore).score = r.score;
        }
      }
      const ext = plugin.scoreExtensions?.();
      if (ext !== undefined) {
        const s = ext.normalizeScore(state, pod, list);
        if (!s.isSuccess()) return scoreFailed(plugin.name, s);
      }
      for (let i = 0; i < list.length; i++) {
        const ns = list[i] as NodeScore;
        if (ns.score > maxNodeScore || ns.score < minNodeScore) {
          return { scores: [], status: Status.error(`plugin "${plugin.name}" returns an invalid score ${ns.score}, it should in the range of [${minNodeScore}, ${maxNodeScore}] after normalizing`) };
        }
        (totals[i] as NodePluginScores).totalScore += ns.score * weight;
      }
    }
    return { scores: totals, status: Status.success() };
  }

  runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): Status {
    for (const p of this.reservePlugins) {
      const s = p.reserve(state, pod, nodeName);
      if (!s.isSuccess()) {
        if (s.isRejected()) return s.withPlugin(p.name);
        return Status.error(`running Reserve plugin "${p.name}": ${s.message()}`).withPlugin(p.name);
      }
    }
    return Status.success();
  }

  /** Unreserve runs in reverse order and must be idempotent. */
  runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): void {
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) this.reservePlugins[i]?.unreserve(state, pod, nodeName);
  }

  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): Status {
    for (const p of this.permitPlugins) {
      const { status } = p.permit(state, pod, nodeName);
      if (!status.isSuccess()) {
        if (status.isRejected()) return status.withPlugin(p.name);
        if (status.isWait()) return Status.error(`plugin "${p.name}" asked to wait; waiting pods are not supported`);
        return Status.error(`running Permit plugin "${p.name}": ${status.message()}`).withPlugin(p.name);
      }
    }
    return Status.success();
  }

  async runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    for (const p of this.preBindPlugins) {
      const s = await p.preBind(state, pod, nodeName);
      if (!s.isSuccess()) {
        if (s.isRejected()) return s.withPlugin(p.name);
        return Status.error(`running PreBind plugin "${p.name}": ${s.message()}`).withPlugin(p.name);
      }
    }
    return Status.success();
  }

  /** `RunBindPlugins`: the first plugin that does not Skip decides. */
  async runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    if (this.bindPlugins.length === 0) return newStatus(Code.Skip);
    let status = newStatus(Code.Skip);
    for (const p of this.bindPlugins) {
      status = await p.bind(state, pod, nodeName);
      if (status.isSkip()) continue;
      if (!status.isSuccess()) {
        if (status.isRejected()) return status.withPlugin(p.name);
        return Status.error(`running Bind plugin "${p.name}": ${status.message()}`).withPlugin(p.name);
      }
      return status;
    }
    return status;
  }

  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void {
    for (const p of this.postBindPlugins) p.postBind(state, pod, nodeName);
  }
}

/** A filter's non-success status as the framework reports it: rejections name the plugin, others become errors. */
function filterFailure(p: FilterPlugin, s: Status): Status {
  if (!s.isRejected()) return Status.error(`running "${p.name}" filter plugin: ${s.message()}`).withPlugin(p.name);
  return s.withPlugin(p.name);
}

/** `PreFilterResult.Merge`: the intersection; undefined means all nodes. */
export function mergePreFilterResults(a: PreFilterResult | undefined, b: PreFilterResult): PreFilterResult {
  if (a === undefined || a.nodeNames === undefined) return { nodeNames: b.nodeNames === undefined ? undefined : new Set(b.nodeNames) };
  if (b.nodeNames === undefined) return a;
  const out = new Set<string>();
  for (const n of a.nodeNames) if (b.nodeNames.has(n)) out.add(n);
  return { nodeNames: out };
}

export { CycleState };
