/**
 * PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread): hard constraints
 * (DoNotSchedule) as a Filter on skew against the global minimum, soft constraints (ScheduleAnyway) as a
 * Score; pods without constraints get the system default spreading (hostname maxSkew 3, zone maxSkew 5)
 * over the Services/ReplicaSets/StatefulSets selecting them. NodeInclusionPolicy and matchLabelKeys are on
 * (both default-enabled in 1.32).
 */
import type { Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { Selector, labelSelectorAsSelector, type Requirement } from '../../../api/labels.js';
import { RequiredNodeAffinity, doNotScheduleTaint, findMatchingUntoleratedTaint } from '../../framework/corev1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  maxNodeScore,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type NodeInfoLister,
  type NodeScore,
  type PositionFilterPlugin,
  type PreFilterExtensions,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueueingHint,
  type ScoreExtensions,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, ScoreFailure, Status, newStatus, scoreResult } from '../../framework/status.js';
import type { NodeTable } from '../../framework/node-table.js';
import type { NodeInfo, PodInfo } from '../../framework/types.js';
import { asPod } from '../_hints.js';
import { DomainCounts, MatchCounts, memoKey } from './_domain-counts.js';
import { Lru } from '../../../util/lru.js';
import { compareStrings } from '../../../util/compare-strings.js';
import { TopologyValues } from './_topology-values.js';

export const Name = names.PodTopologySpread;
export const ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + ' (missing required label)';

const labelHostname = 'kubernetes.io/hostname';
const labelZone = 'topology.kubernetes.io/zone';
const preFilterStateKey = 'PreFilter' + Name;
const statusLabel = newStatus(Code.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch);
const statusSkew = newStatus(Code.Unschedulable, ErrReasonConstraintsNotMatch);
const preScoreStateKey = 'PreScore' + Name;
const maxInt32 = 2147483647;

/** `systemDefaultConstraints`. */
export const systemDefaultConstraints: readonly TopologySpreadConstraint[] = [
  { topologyKey: labelHostname, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: labelZone, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[];
  /** 'System' (default) or 'List'. */
  defaultingType?: 'System' | 'List';
}

interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  nodeAffinityPolicy: 'Honor' | 'Ignore';
  nodeTaintsPolicy: 'Honor' | 'Ignore';
}

const pairKey = (k: string, v: string): string => `${k}\u0000${v}`;

/** `criticalPaths`: the two smallest match counts of a topology key. */
class CriticalPaths {
  p: [{ value: string; num: number }, { value: string; num: number }] = [
    { value: '', num: maxInt32 },
    { value: '', num: maxInt32 },
  ];
  update(value: string, num: number): void {
    const [a, b] = this.p;
    let i = -1;
    if (value === a.value) i = 0;
    else if (value === b.value) i = 1;
    if (i >= 0) {
      this.p[i as 0 | 1].num = num;
      if (this.p[0].num > this.p[1].num) this.p = [this.p[1], this.p[0]];
    } else if (num < a.num) {
      this.p = [{ value, num }, a];
    } else if (num < b.num) {
      this.p = [a, { value, num }];
    }
  }
  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.p = [{ ...this.p[0] }, { ...this.p[1] }];
    return c;
  }
}

class PreFilterState implements StateData {
  constraints: Constraint[] = [];
  tpKeyToCriticalPaths = new Map<string, CriticalPaths>();
  tpKeyToDomainsNum = new Map<string, number>();
  tpPairToMatchNum = new Map<string, number>();
  /** `tpPairToMatchNum` by topology key, then value: Filter looks up without building a pair string. */
  tpValueToMatchNum = new Map<string, Map<string, number>>();
  /** Whether the pod itself matches `constraints[i]`, for the labels object it was computed from. */
  selfMatch: number[] = [];
  selfMatchLabels: Readonly<Record<string, string>> | undefined = undefined;
  clone(): StateData {
    const c = new PreFilterState();
    c.constraints = this.constraints;
    for (const [k, v] of this.tpKeyToCriticalPaths) c.tpKeyToCriticalPaths.set(k, v.clone());
    c.tpKeyToDomainsNum = new Map(this.tpKeyToDomainsNum);
    c.tpPairToMatchNum = new Map(this.tpPairToMatchNum);
    for (const [k, v] of this.tpValueToMatchNum) c.tpValueToMatchNum.set(k, new Map(v));
    c.selfMatch = this.selfMatch;
    c.selfMatchLabels = this.selfMatchLabels;
    return c;
  }
  setMatchNum(tpKey: string, value: string, n: number): void {
    this.tpPairToMatchNum.set(pairKey(tpKey, value), n);
    let m = this.tpValueToMatchNum.get(tpKey);
    if (m === undefined) this.tpValueToMatchNum.set(tpKey, (m = new Map<string, number>()));
    m.set(value, n);
  }
  minMatchNum(tpKey: string, minDomains: number): number | undefined {
    const paths = this.tpKeyToCriticalPaths.get(tpKey);
    if (paths === undefined) return undefined;
    let min = paths.p[0].num;
    const domains = this.tpKeyToDomainsNum.get(tpKey);
    if (domains === undefined) return undefined;
    if (domains < minDomains) min = 0;
    return min;
  }
}

class PreScoreState implements StateData {
  constraints: Constraint[] = [];
  ignoredNodes = new Set<string>();
  topologyPairToPodCounts = new Map<string, number>();
  topologyNormalizingWeight: number[] = [];
  /** The match-count memo's id of `constraints[i]` (selector and namespace). */
  selectorIds: number[] = [];
  namespace = '';
  /** The nodes' values of `constraints[i]`'s topology key, as ids. */
  topologyValues: TopologyValues[] = [];
  /** `topologyPairToPodCounts` of `constraints[i]`'s topology key by value id (undefined for hostname). */
  countsById: (Map<number, number> | undefined)[] = [];
  /** For a hostname `constraints[i]`: every node's count of matching pods, by position in `nodes`. */
  hostCounts: (DomainCounts | undefined)[] = [];
  nodes: readonly NodeInfo[] = [];
  clone(): StateData {
    return this;
  }
}

/** Whether the pod itself matches each constraint (computed once per labels object the state sees). */
function selfMatchOf(s: PreFilterState, pod: Pod): readonly number[] {
  const podLabels = pod.metadata?.labels;
  if (s.selfMatchLabels !== podLabels || s.selfMatch.length !== s.constraints.length) {
    s.selfMatch = s.constraints.map((c) => (c.selector.matches(podLabels) ? 1 : 0));
    s.selfMatchLabels = podLabels;
  }
  return s.selfMatch;
}

function nodeLabelsMatchSpreadConstraints(labels: Readonly<Record<string, string>>, constraints: readonly Constraint[]): boolean {
  for (const c of constraints) if (!Object.prototype.hasOwnProperty.call(labels, c.topologyKey)) return false;
  return true;
}

function matchNodeInclusionPolicies(c: Constraint, pod: Pod, nodeInfo: NodeInfo, required: RequiredNodeAffinity): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !required.matchLabels(nodeInfo.labels, nodeInfo.name)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && findMatchingUntoleratedTaint(nodeInfo.taints, pod.spec?.tolerations, doNotScheduleTaint) !== undefined) return false;
  return true;
}

function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

export class PodTopologySpread implements PreFilterPlugin, PreFilterExtensions, FilterPlugin, PositionFilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;
  private readonly defaultConstraints: readonly TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;
  private readonly matchCounts = new MatchCounts();
  /**
   * `DomainCounts` by question key. A question is asked by every pod of a workload (its selector and node
   * selection), and the ReplicaSets of a scale-up interleave in the queue: they take turns, so with fewer
   * places than questions in turn every question misses and is counted over all nodes again. Each workload
   * asks two or three (zone and hostname defaults, its own constraints); 152 Deployments rolling out at
   * once asked about 350, which 256 places could not hold. About 180 KB each at 5,000 nodes.
   */
  private readonly domainCounts = new Lru<DomainCounts>(1024);
  private readonly topologyValues = new Map<string, TopologyValues>();

  constructor(
    private readonly handle: Handle,
    args: PodTopologySpreadArgs = {},
  ) {
    this.systemDefaulted = (args.defaultingType ?? 'System') === 'System';
    this.defaultConstraints = this.systemDefaulted ? systemDefaultConstraints : (args.defaultConstraints ?? []);
  }

  /** `filterTopologySpreadConstraints`: those with the given action, selectors merged with matchLabelKeys. */
  private filterConstraints(cs: readonly TopologySpreadConstraint[], podLabels: Readonly<Record<string, string>> | undefined, action: string): Constraint[] {
    const out: Constraint[] = [];
    for (const c of cs) {
      if (c.whenUnsatisfiable !== action) continue;
      let selector = labelSelectorAsSelector(c.labelSelector);
      if ((c.matchLabelKeys?.length ?? 0) > 0) {
        const extra: Requirement[] = [];
        for (const k of c.matchLabelKeys ?? []) {
          const v = podLabels?.[k];
          if (v !== undefined) extra.push({ key: k, operator: 'In', values: [v] });
        }
        if (extra.length > 0) selector = new Selector([...extra, ...selector.requirements]);
      }
      out.push({
        maxSkew: c.maxSkew,
        topologyKey: c.topologyKey,
        selector,
        minDomains: c.minDomains ?? 1,
        nodeAffinityPolicy: c.nodeAffinityPolicy === 'Ignore' ? 'Ignore' : 'Honor',
        nodeTaintsPolicy: c.nodeTaintsPolicy === 'Honor' ? 'Honor' : 'Ignore',
      });
    }
    return out;
  }

  /** `buildDefaultConstraints`: the default constraints with the pod's default selector. */
  private buildDefaultConstraints(pod: Pod, action: string): Constraint[] {
    const cs = this.filterConstraints(this.defaultConstraints, pod.metadata?.labels, action);
    if (cs.length === 0) return [];
    const selector = this.defaultSelector(pod);
    if (selector.isEmpty()) return [];
    for (const c of cs) c.selector = selector;
    return cs;
  }

  /** `helper.DefaultSelector`: Services selecting the pod, plus the owning controller's selector. */
  private defaultSelector(pod: Pod): Selector {
    const src = this.handle.spreadingSelectorSource();
    if (src === undefined) return Selector.everything();
    const labels = pod.metadata?.labels ?? {};
    const set = new Map<string, string>();
    for (const sel of src.serviceSelectors(pod.metadata?.namespace ?? '')) {
      const entries = Object.entries(sel);
      if (entries.every(([k, v]) => labels[k] === v)) for (const [k, v] of entries) set.set(k, v);
    }
    const reqs: Requirement[] = [...set].sort(([a], [b]) => compareStrings(a, b)).map(([k, v]) => ({ key: k, operator: 'Equals', values: [v] }));
    const owner = src.controllerSelector(pod);
    if (owner !== undefined && !owner.isEmpty()) reqs.push(...owner.requirements);
    return new Selector(reqs);
  }

  /**
   * The per-domain counts of constraint `c` over `list`, caught up incrementally: nodes count when they
   * carry all `requiredKeys` and pass `c`'s node inclusion policies for `pod`.
   */
  private countsFor(lister: NodeInfoLister, pod: Pod, c: Constraint, selectorKey: string, requiredKeys: readonly string[], required: RequiredNodeAffinity): DomainCounts {
    const spec = pod.spec;
    const affinityKey = c.nodeAffinityPolicy === 'Honor' ? JSON.stringify([spec?.nodeSelector ?? null, spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null]) : '';
    const taintsKey = c.nodeTaintsPolicy === 'Honor' ? JSON.stringify(spec?.tolerations ?? null) : '';
    const key = `${requiredKeys.join('\u0001')}\u0000${c.topologyKey}\u0000${selectorKey}\u0000${affinityKey}\u0000${taintsKey}`;
    const dc = this.domainCounts.getOrCreate(key, () => new DomainCounts());
    dc.sync(lister, {
      topologyKey: c.topologyKey,
      selector: c.selector,
      selectorId: this.matchCounts.idOf(selectorKey),
      namespace: pod.metadata?.namespace ?? '',
      valueOf: (nodeInfo) => {
        for (const k of requiredKeys) if (!Object.prototype.hasOwnProperty.call(nodeInfo.labels, k)) return undefined;
        if (!matchNodeInclusionPolicies(c, pod, nodeInfo, required)) return undefined;
        return nodeInfo.labels[c.topologyKey] ?? '';
      },
    }, this.matchCounts);
    return dc;
  }

  /** The value ids of a topology key, ready for a cycle over `numNodes` nodes. */
  private topologyValuesOf(key: string, numNodes: number): TopologyValues {
    let tv = this.topologyValues.get(key);
    if (tv === undefined) {
      if (this.topologyValues.size >= 64) this.topologyValues.clear();
      this.topologyValues.set(key, (tv = new TopologyValues(key)));
    }
    tv.beginCycle(numNodes);
    return tv;
  }

  // ---- filtering ----

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const s = this.calPreFilterState(pod);
    if (s.constraints.length === 0) return { status: newStatus(Code.Skip) };
    state.write(preFilterStateKey, s);
    return { status: Status.success() };
  }

  private calPreFilterState(pod: Pod): PreFilterState {
    const s = new PreFilterState();
    const tsc = pod.spec?.topologySpreadConstraints ?? [];
    const constraints = tsc.length > 0 ? this.filterConstraints(tsc, pod.metadata?.labels, 'DoNotSchedule') : this.buildDefaultConstraints(pod, 'DoNotSchedule');
    if (constraints.length === 0) return s;
    s.constraints = constraints;
    const required = new RequiredNodeAffinity(pod);
    const ns = pod.metadata?.namespace ?? '';
    const lister = this.handle.snapshot();
    const requiredKeys = constraints.map((c) => c.topologyKey);
    const byTopologyKey = new Map<string, DomainCounts[]>();
    for (const c of constraints) {
      const dc = this.countsFor(lister, pod, c, memoKey(c.selector, ns), requiredKeys, required);
      const group = byTopologyKey.get(c.topologyKey);
      if (group === undefined) byTopologyKey.set(c.topologyKey, [dc]);
      else group.push(dc);
    }
    // The straightforward loop's insertion order per topology key (the critical paths depend on it).
    for (const [tpKey, group] of byTopologyKey) {
      const first = group[0];
      if (group.length === 1 && first !== undefined) {
        for (const v of first.order()) s.setMatchNum(tpKey, v, first.total(v) ?? 0);
        continue;
      }
      const merged = new Map<string, { first: number; total: number }>();
      for (const dc of group) {
        for (const [v, i] of dc.firstIndexes()) {
          const m = merged.get(v);
          if (m === undefined) merged.set(v, { first: i, total: dc.total(v) ?? 0 });
          else {
            m.first = Math.min(m.first, i);
            m.total += dc.total(v) ?? 0;
          }
        }
      }
      for (const [v, m] of [...merged].sort((a, b) => a[1].first - b[1].first)) s.setMatchNum(tpKey, v, m.total);
    }
    for (const [k, values] of s.tpValueToMatchNum) s.tpKeyToDomainsNum.set(k, values.size);
    for (const c of constraints) s.tpKeyToCriticalPaths.set(c.topologyKey, new CriticalPaths());
    for (const [k, values] of s.tpValueToMatchNum) {
      const paths = s.tpKeyToCriticalPaths.get(k);
      if (paths !== undefined) for (const [v, num] of values) paths.update(v, num);
    }
    return s;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status {
    this.updateWithPod(state, podInfoToAdd.pod, podToSchedule, nodeInfo, 1);
    return Status.success();
  }

  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status {
    this.updateWithPod(state, podInfoToRemove.pod, podToSchedule, nodeInfo, -1);
    return Status.success();
  }

  private updateWithPod(state: CycleState, updated: Pod, preemptor: Pod, nodeInfo: NodeInfo, delta: number): void {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined || updated.metadata?.namespace !== preemptor.metadata?.namespace || nodeInfo.node === undefined) return;
    if (!nodeLabelsMatchSpreadConstraints(nodeInfo.labels, s.constraints)) return;
    const required = new RequiredNodeAffinity(preemptor);
    for (const c of s.constraints) {
      if (!c.selector.matches(updated.metadata?.labels)) continue;
      if (!matchNodeInclusionPolicies(c, preemptor, nodeInfo, required)) continue;
      const v = nodeInfo.labels[c.topologyKey] ?? '';
      const n = (s.tpPairToMatchNum.get(pairKey(c.topologyKey, v)) ?? 0) + delta;
      s.setMatchNum(c.topologyKey, v, n);
      s.tpKeyToCriticalPaths.get(c.topologyKey)?.update(v, n);
    }
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return Status.error(`reading "${preFilterStateKey}" from cycleState: not found`);
    if (s.constraints.length === 0) return Status.success();
    const selfMatch = selfMatchOf(s, pod);
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as Constraint;
      const tpVal = nodeInfo.labels[c.topologyKey];
      if (tpVal === undefined) return statusLabel;
      const minMatchNum = s.minMatchNum(c.topologyKey, c.minDomains);
      if (minMatchNum === undefined) return Status.error('failed to retrieve path by topology key');
      const selfMatchNum = selfMatch[i] ?? 0;
      const matchNum = s.tpValueToMatchNum.get(c.topologyKey)?.get(tpVal) ?? 0;
      const skew = matchNum + selfMatchNum - minMatchNum;
      if (skew > c.maxSkew) return statusSkew;
    }
    return Status.success();
  }

  /**
   * `filter` by position: a node's topology values come as ids by position (see _topology-values.ts), and
   * the match counts by id. Undefined when a key has no critical paths (`filter` errs on every node then).
   */
  positionFilter(state: CycleState, pod: Pod, table: NodeTable): ((i: number) => Status) | undefined {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return undefined;
    const success = Status.success();
    const n = s.constraints.length;
    if (n === 0) return () => success;
    const selfMatch = selfMatchOf(s, pod);
    const tvs: TopologyValues[] = [];
    const matchById: number[][] = [];
    const base: number[] = [];
    for (let k = 0; k < n; k++) {
      const c = s.constraints[k] as Constraint;
      const minMatchNum = s.minMatchNum(c.topologyKey, c.minDomains);
      if (minMatchNum === undefined) return undefined;
      const tv = this.topologyValuesOf(c.topologyKey, table.list.length);
      const byId: number[] = [];
      for (const [value, num] of s.tpValueToMatchNum.get(c.topologyKey) ?? []) byId[tv.intern(value)] = num;
      tvs.push(tv);
      matchById.push(byId);
      base.push((selfMatch[k] ?? 0) - minMatchNum);
    }
    const { objectGen, list } = table;
    return (i) => {
      for (let k = 0; k < n; k++) {
        const id = (tvs[k] as TopologyValues).idAt(i, objectGen[i] as number, list);
        if (id < 0) return statusLabel;
        const skew = ((matchById[k] as number[])[id] ?? 0) + (base[k] as number);
        if (skew > (s.constraints[k] as Constraint).maxSkew) return statusSkew;
      }
      return success;
    };
  }

  // ---- scoring ----

  preScore(state: CycleState, pod: Pod, filteredNodes: readonly NodeInfo[]): Status {
    const lister = this.handle.snapshot();
    const allNodes = lister.list();
    if (filteredNodes.length === 0 || allNodes.length === 0) return newStatus(Code.Skip);
    const s = new PreScoreState();
    const tsc = pod.spec?.topologySpreadConstraints ?? [];
    const requireAllTopologies = tsc.length > 0 || !this.systemDefaulted;
    s.constraints = tsc.length > 0 ? this.filterConstraints(tsc, pod.metadata?.labels, 'ScheduleAnyway') : this.buildDefaultConstraints(pod, 'ScheduleAnyway');
    if (s.constraints.length === 0) return newStatus(Code.Skip);
    const topoSize = new Array<number>(s.constraints.length).fill(0);
    const tvs = s.constraints.map((c) => this.topologyValuesOf(c.topologyKey, allNodes.length));
    s.topologyValues = tvs;
    // Per topology key (hostname aside): value id -> its pair key, in the order the nodes first show it.
    const domains = new Map<string, Map<number, string>>();
    const domainOf: (Map<number, string> | undefined)[] = s.constraints.map((c) => {
      if (c.topologyKey === labelHostname) return undefined;
      let d = domains.get(c.topologyKey);
      if (d === undefined) domains.set(c.topologyKey, (d = new Map<number, string>()));
      return d;
    });
    // The nodes' positions in the node table, when known: their ids then come without reading the NodeInfos.
    const table = lister.table;
    const positions = table !== undefined && table.list === allNodes ? state.positionsOf(filteredNodes.length) : undefined;
    const idOf = (tv: TopologyValues, j: number): number => {
      if (positions === undefined) return tv.idOf(filteredNodes[j] as NodeInfo);
      const at = positions[j] as number;
      return tv.idAt(at, (table as NodeTable).objectGen[at] as number, allNodes);
    };
    // Indexed loops: iterators here allocated for every node of every cycle.
    nodes: for (let j = 0; j < filteredNodes.length; j++) {
      if (requireAllTopologies) {
        for (let k = 0; k < tvs.length; k++) {
          if (idOf(tvs[k] as TopologyValues, j) < 0) {
            s.ignoredNodes.add(positions !== undefined ? ((table as NodeTable).names[positions[j] as number] as string) : (filteredNodes[j] as NodeInfo).name);
            continue nodes;
          }
        }
      }
      for (let i = 0; i < s.constraints.length; i++) {
        const d = domainOf[i];
        if (d === undefined) continue;
        const tv = tvs[i] as TopologyValues;
        let id = idOf(tv, j);
        if (id < 0) id = tv.intern('');
        if (!d.has(id)) {
          const key = pairKey(tv.key, tv.valueOf(id));
          s.topologyPairToPodCounts.set(key, 0);
          d.set(id, key);
          topoSize[i] = (topoSize[i] ?? 0) + 1;
        }
      }
    }
    s.topologyNormalizingWeight = s.constraints.map((c, i) => topologyNormalizingWeight(c.topologyKey === labelHostname ? filteredNodes.length - s.ignoredNodes.size : (topoSize[i] ?? 0)));
    const required = new RequiredNodeAffinity(pod);
    const ns = pod.metadata?.namespace ?? '';
    s.namespace = ns;
    const selectorKeys = s.constraints.map((c) => memoKey(c.selector, ns));
    s.selectorIds = selectorKeys.map((k) => this.matchCounts.idOf(k));
    const requiredKeys = requireAllTopologies ? s.constraints.map((c) => c.topologyKey) : [];
    for (const [i, c] of s.constraints.entries()) {
      if (c.topologyKey === labelHostname) continue;
      const dc = this.countsFor(lister, pod, c, selectorKeys[i] ?? '', requiredKeys, required);
      const tv = tvs[i] as TopologyValues;
      for (const [id, key] of domainOf[i] ?? []) {
        const n = dc.total(tv.valueOf(id));
        if (n !== undefined) s.topologyPairToPodCounts.set(key, (s.topologyPairToPodCounts.get(key) ?? 0) + n);
      }
    }
    const byTopologyKey = new Map<string, Map<number, number>>();
    for (const [tpKey, d] of domains) {
      const counts = new Map<number, number>();
      for (const [id, key] of d) counts.set(id, s.topologyPairToPodCounts.get(key) ?? 0);
      byTopologyKey.set(tpKey, counts);
    }
    s.countsById = s.constraints.map((c) => byTopologyKey.get(c.topologyKey));
    // Score counts a node's matching pods whatever the inclusion policies say: one count per node.
    s.nodes = allNodes;
    s.hostCounts = s.constraints.map((c, i) => {
      if (c.topologyKey !== labelHostname) return undefined;
      const dc = this.domainCounts.getOrCreate(`\u0000host\u0000${selectorKeys[i] ?? ''}`, () => new DomainCounts());
      dc.sync(lister, { topologyKey: c.topologyKey, selector: c.selector, selectorId: s.selectorIds[i] ?? -1, namespace: ns, valueOf: () => '' }, this.matchCounts);
      return dc;
    });
    state.write(preScoreStateKey, s);
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return scoreResult(() => this.scoreValue(state, pod, nodeInfo));
  }

  scoreValue(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number {
    return this.scoreAt(this.preScoreState(state), nodeInfo.snapshotIndex, nodeInfo, undefined);
  }

  /** Scores by position when the PreScore state counted the node table's list (else node by node). */
  scorePositions(state: CycleState, _pod: Pod, table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean {
    const s = this.preScoreState(state);
    if (s.nodes !== table.list) return false;
    for (let j = 0; j < positions.length; j++) (scores[j] as NodeScore).score = this.scoreAt(s, positions[j] as number, undefined, table);
    return true;
  }

  private preScoreState(state: CycleState): PreScoreState {
    const s = state.read<PreScoreState>(preScoreStateKey);
    if (s === undefined) throw new ScoreFailure(Status.error(`reading "${preScoreStateKey}" from cycleState: not found`));
    return s;
  }

  /**
   * The score of a node: `nodeInfo` (at `at`, its snapshotIndex), or, without it, the node at position `at`
   * of the node table, which is then read instead of the NodeInfo.
   */
  private scoreAt(s: PreScoreState, at: number, nodeInfo: NodeInfo | undefined, table: NodeTable | undefined): number {
    if (s.ignoredNodes.size > 0 && s.ignoredNodes.has(nodeInfo !== undefined ? nodeInfo.name : (table?.names[at] as string))) return 0;
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as Constraint;
      const tv = s.topologyValues[i] as TopologyValues;
      const id = nodeInfo !== undefined ? tv.idOf(nodeInfo) : tv.idAt(at, (table as NodeTable).objectGen[at] as number, s.nodes);
      if (id < 0) continue;
      let cnt: number;
      if (c.topologyKey !== labelHostname) cnt = s.countsById[i]?.get(id) ?? 0;
      else {
        const hc = s.hostCounts[i];
        cnt =
          hc !== undefined && (nodeInfo === undefined || s.nodes[at] === nodeInfo)
            ? hc.countAt(at)
            : this.matchCounts.count(nodeInfo ?? (s.nodes[at] as NodeInfo), c.selector, s.selectorIds[i] ?? -1, s.namespace);
      }
      // upstream's scoreForCount. Written out, with the weight read as the number it always is: a call
      // returning the fraction, or a `?? 0` fallback on it, boxed it on the heap for every node and
      // constraint of every cycle (a seventh of what a scheduling cycle allocated).
      score += cnt * (s.topologyNormalizingWeight[i] as number) + (c.maxSkew - 1);
    }
    return goRound(score);
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    const s = state.read<PreScoreState>(preScoreStateKey);
    if (s === undefined) return Status.success();
    let minScore = Number.MAX_SAFE_INTEGER;
    let maxScore = 0;
    const ignored = s.ignoredNodes.size > 0;
    for (const sc of scores) {
      if (ignored && s.ignoredNodes.has(sc.name)) continue;
      if (sc.score < minScore) minScore = sc.score;
      if (sc.score > maxScore) maxScore = sc.score;
    }
    for (const sc of scores) {
      if (ignored && s.ignoredNodes.has(sc.name)) {
        sc.score = 0;
        continue;
      }
      if (maxScore === 0) {
        sc.score = maxNodeScore;
        continue;
      }
      sc.score = Math.trunc((maxNodeScore * (maxScore + minScore - sc.score)) / maxScore);
    }
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'AssignedPod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete, label: 'AssignedPodAdd|PodLabelChange|AssignedPodDelete' },
        queueingHintFn: (pod, oldObj, newObj) => this.isSchedulableAfterPodChange(pod, oldObj, newObj),
      },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeAdd|NodeDelete|NodeLabelChange|NodeTaintChange' } },
    ];
  }

  private isSchedulableAfterPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const changed = asPod(newObj) ?? asPod(oldObj);
    if (changed === undefined) return 'Queue';
    if (changed.metadata?.namespace !== pod.metadata?.namespace) return 'QueueSkip';
    const tsc = pod.spec?.topologySpreadConstraints ?? [];
    const cs = tsc.length > 0 ? this.filterConstraints(tsc, pod.metadata?.labels, 'DoNotSchedule') : this.buildDefaultConstraints(pod, 'DoNotSchedule');
    const o = asPod(oldObj);
    const n = asPod(newObj);
    for (const c of cs) {
      if ((o !== undefined && c.selector.matches(o.metadata?.labels)) || (n !== undefined && c.selector.matches(n.metadata?.labels))) return 'Queue';
    }
    return 'QueueSkip';
  }
}

/** Go's math.Round: halves away from zero. */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

export function create(args: unknown, h: Handle): PodTopologySpread {
  return new PodTopologySpread(h, (args ?? {}));
}
