/**
 * InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity): required pod affinity and
 * anti-affinity of the incoming pod, and existing pods' required anti-affinity, as a Filter over topology
 * pair counts computed in PreFilter; preferred terms (both directions) and existing pods' required
 * affinity (hardPodAffinityWeight 1) as a Score.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Selector, type Labels } from '../../../api/labels.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  maxNodeScore,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type NodeScore,
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
import { PodInfo, affinityTermMatches, type AffinityTerm, type NodeInfo, type WeightedAffinityTerm } from '../../framework/types.js';
import { asPod } from '../_hints.js';

export const Name = names.InterPodAffinity;
export const ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

const preFilterStateKey = 'PreFilter' + Name;
const statusAffinity = newStatus(Code.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch);
const statusAntiAffinity = newStatus(Code.Unschedulable, ErrReasonAntiAffinityRulesNotMatch);
const statusExisting = newStatus(Code.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch);
const preScoreStateKey = 'PreScore' + Name;

export interface InterPodAffinityArgs {
  hardPodAffinityWeight?: number;
  ignorePreferredTermsOfExistingPods?: boolean;
}

const pairKey = (k: string, v: string): string => `${k}\u0000${v}`;

/** `topologyToMatchedTermCount`. */
class TopologyCounts extends Map<string, number> {
  updateFor(labels: Readonly<Record<string, string>>, tk: string, value: number): void {
    const tv = labels[tk];
    if (tv === undefined) return;
    const key = pairKey(tk, tv);
    const n = (this.get(key) ?? 0) + value;
    if (n === 0) this.delete(key);
    else this.set(key, n);
  }
  updateWithAntiAffinityTerms(terms: readonly AffinityTerm[], pod: Pod, nsLabels: Labels, nodeLabels: Readonly<Record<string, string>>, value: number): void {
    for (const t of terms) if (affinityTermMatches(t, pod, nsLabels)) this.updateFor(nodeLabels, t.topologyKey, value);
  }
  updateWithAffinityTerms(terms: readonly AffinityTerm[], pod: Pod, nodeLabels: Readonly<Record<string, string>>, value: number): void {
    if (podMatchesAllAffinityTerms(terms, pod)) for (const t of terms) this.updateFor(nodeLabels, t.topologyKey, value);
  }
  copy(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [k, v] of this) c.set(k, v);
    return c;
  }
}

function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!affinityTermMatches(t, pod, undefined)) return false;
  return true;
}

class PreFilterState implements StateData {
  constructor(
    readonly podInfo: PodInfo,
    readonly namespaceLabels: Labels,
    public existingAntiAffinityCounts: TopologyCounts,
    public affinityCounts: TopologyCounts,
    public antiAffinityCounts: TopologyCounts,
  ) {}
  clone(): StateData {
    return new PreFilterState(this.podInfo, this.namespaceLabels, this.existingAntiAffinityCounts.copy(), this.affinityCounts.copy(), this.antiAffinityCounts.copy());
  }
  updateWithPod(pi: PodInfo, nodeLabels: Readonly<Record<string, string>>, multiplier: number): void {
    this.existingAntiAffinityCounts.updateWithAntiAffinityTerms(pi.requiredAntiAffinityTerms, this.podInfo.pod, this.namespaceLabels, nodeLabels, multiplier);
    this.affinityCounts.updateWithAffinityTerms(this.podInfo.requiredAffinityTerms, pi.pod, nodeLabels, multiplier);
    this.antiAffinityCounts.updateWithAntiAffinityTerms(this.podInfo.requiredAntiAffinityTerms, pi.pod, undefined, nodeLabels, multiplier);
  }
}

/** topologyKey -> topologyValue -> score. */
type ScoreMap = Map<string, Map<string, number>>;

class PreScoreState implements StateData {
  constructor(readonly topologyScore: ScoreMap) {}
  clone(): StateData {
    return this;
  }
}

function processTerm(m: ScoreMap, term: AffinityTerm, weight: number, pod: Pod, nsLabels: Labels, nodeLabels: Readonly<Record<string, string>>, multiplier: number): void {
  if (!affinityTermMatches(term, pod, nsLabels)) return;
  const tv = nodeLabels[term.topologyKey];
  if (tv === undefined) return;
  let inner = m.get(term.topologyKey);
  if (inner === undefined) m.set(term.topologyKey, (inner = new Map<string, number>()));
  inner.set(tv, (inner.get(tv) ?? 0) + weight * multiplier);
}

function processTerms(m: ScoreMap, terms: readonly WeightedAffinityTerm[], pod: Pod, nsLabels: Labels, nodeLabels: Readonly<Record<string, string>>, multiplier: number): void {
  for (const t of terms) processTerm(m, t.term, t.weight, pod, nsLabels, nodeLabels, multiplier);
}

export class InterPodAffinity implements PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;
  private readonly hardPodAffinityWeight: number;
  private readonly ignorePreferredTermsOfExistingPods: boolean;

  constructor(
    private readonly handle: Handle,
    args: InterPodAffinityArgs = {},
  ) {
    this.hardPodAffinityWeight = args.hardPodAffinityWeight ?? 1;
    this.ignorePreferredTermsOfExistingPods = args.ignorePreferredTermsOfExistingPods ?? false;
  }

  /** `mergeAffinityTermNamespacesIfNotEmpty`: resolve a namespaceSelector into namespace names. */
  private mergeNamespaces(t: AffinityTerm): AffinityTerm {
    if (t.namespaceSelector.isEmpty()) return t;
    const namespaces = new Set(t.namespaces);
    for (const n of this.handle.namespacesMatching(t.namespaceSelector)) namespaces.add(n);
    return { ...t, namespaces, namespaceSelector: Selector.nothing() };
  }

  private mergedPodInfo(pod: Pod): PodInfo {
    const pi = new PodInfo(pod);
    for (const list of [pi.requiredAffinityTerms, pi.requiredAntiAffinityTerms]) {
      for (let i = 0; i < list.length; i++) list[i] = this.mergeNamespaces(list[i] as AffinityTerm);
    }
    for (const list of [pi.preferredAffinityTerms, pi.preferredAntiAffinityTerms]) {
      for (let i = 0; i < list.length; i++) {
        const w = list[i] as WeightedAffinityTerm;
        list[i] = { term: this.mergeNamespaces(w.term), weight: w.weight };
      }
    }
    return pi;
  }

  // ---- filtering ----

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const snap = this.handle.snapshot();
    const podInfo = this.mergedPodInfo(pod);
    const nsLabels = this.handle.namespaceLabels(pod.metadata?.namespace ?? '');
    const existing = new TopologyCounts();
    for (const nodeInfo of snap.havePodsWithRequiredAntiAffinityList()) {
      for (const ep of nodeInfo.podsWithRequiredAntiAffinity) existing.updateWithAntiAffinityTerms(ep.requiredAntiAffinityTerms, pod, nsLabels, nodeInfo.labels, 1);
    }
    const affinityCounts = new TopologyCounts();
    const antiAffinityCounts = new TopologyCounts();
    if (podInfo.requiredAffinityTerms.length > 0 || podInfo.requiredAntiAffinityTerms.length > 0) {
      for (const nodeInfo of snap.list()) {
        for (const ep of nodeInfo.pods) {
          affinityCounts.updateWithAffinityTerms(podInfo.requiredAffinityTerms, ep.pod, nodeInfo.labels, 1);
          antiAffinityCounts.updateWithAntiAffinityTerms(podInfo.requiredAntiAffinityTerms, ep.pod, undefined, nodeInfo.labels, 1);
        }
      }
    }
    if (existing.size === 0 && podInfo.requiredAffinityTerms.length === 0 && podInfo.requiredAntiAffinityTerms.length === 0) {
      return { status: newStatus(Code.Skip) };
    }
    state.write(preFilterStateKey, new PreFilterState(podInfo, nsLabels, existing, affinityCounts, antiAffinityCounts));
    return { status: Status.success() };
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return Status.error(`reading "${preFilterStateKey}" from cycleState: not found`);
    s.updateWithPod(podInfoToAdd, nodeInfo.labels, 1);
    return Status.success();
  }

  removePod(state: CycleState, _podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return Status.error(`reading "${preFilterStateKey}" from cycleState: not found`);
    s.updateWithPod(podInfoToRemove, nodeInfo.labels, -1);
    return Status.success();
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return Status.error(`reading "${preFilterStateKey}" from cycleState: not found`);
    if (!satisfyPodAffinity(s, nodeInfo)) return statusAffinity;
    if (!satisfyPodAntiAffinity(s, nodeInfo)) return statusAntiAffinity;
    if (!satisfyExistingPodsAntiAffinity(s, nodeInfo)) return statusExisting;
    return Status.success();
  }

  // ---- scoring ----

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): Status {
    if (nodes.length === 0) return newStatus(Code.Skip);
    const a = pod.spec?.affinity;
    const hasConstraints = (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 || (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
    if (this.ignorePreferredTermsOfExistingPods && !hasConstraints) return newStatus(Code.Skip);
    const snap = this.handle.snapshot();
    const allNodes = hasConstraints ? snap.list() : snap.havePodsWithAffinityList();
    if (allNodes.length === 0) return newStatus(Code.Skip);
    const podInfo = this.mergedPodInfo(pod);
    const nsLabels = this.handle.namespaceLabels(pod.metadata?.namespace ?? '');
    const topologyScore: ScoreMap = new Map();
    for (const nodeInfo of allNodes) {
      const nodeLabels = nodeInfo.labels;
      if (Object.keys(nodeLabels).length === 0) continue;
      const podsToProcess = hasConstraints ? nodeInfo.pods : nodeInfo.podsWithAffinity;
      for (const ep of podsToProcess) {
        processTerms(topologyScore, podInfo.preferredAffinityTerms, ep.pod, undefined, nodeLabels, 1);
        processTerms(topologyScore, podInfo.preferredAntiAffinityTerms, ep.pod, undefined, nodeLabels, -1);
        if (this.hardPodAffinityWeight > 0) {
          for (const t of ep.requiredAffinityTerms) processTerm(topologyScore, t, this.hardPodAffinityWeight, pod, nsLabels, nodeLabels, 1);
        }
        processTerms(topologyScore, ep.preferredAffinityTerms, pod, nsLabels, nodeLabels, 1);
        processTerms(topologyScore, ep.preferredAntiAffinityTerms, pod, nsLabels, nodeLabels, -1);
      }
    }
    if (topologyScore.size === 0) return newStatus(Code.Skip);
    state.write(preScoreStateKey, new PreScoreState(topologyScore));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return scoreResult(() => this.scoreValue(state, pod, nodeInfo));
  }

  scoreValue(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number {
    const s = state.read<PreScoreState>(preScoreStateKey);
    if (s === undefined) throw new ScoreFailure(Status.error(`reading "${preScoreStateKey}" from cycleState: not found`));
    let score = 0;
    for (const [tk, values] of s.topologyScore) {
      const v = nodeInfo.labels[tk];
      if (v !== undefined) score += values.get(v) ?? 0;
    }
    return score;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    const s = state.read<PreScoreState>(preScoreStateKey);
    if (s === undefined || s.topologyScore.size === 0) return Status.success();
    let min = Number.MAX_SAFE_INTEGER;
    let max = Number.MIN_SAFE_INTEGER;
    for (const sc of scores) {
      if (sc.score > max) max = sc.score;
      if (sc.score < min) min = sc.score;
    }
    const diff = max - min;
    for (const sc of scores) {
      sc.score = diff > 0 ? Math.trunc(maxNodeScore * ((sc.score - min) / diff)) : 0;
    }
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'AssignedPod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete, label: 'AssignedPodAdd|PodLabelChange|AssignedPodDelete' },
        queueingHintFn: (pod, oldObj, newObj) => this.isSchedulableAfterPodChange(pod, oldObj, newObj),
      },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'NodeAdd|NodeLabelChange' } },
    ];
  }

  private isSchedulableAfterPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const o = asPod(oldObj);
    const n = asPod(newObj);
    const pi = this.mergedPodInfo(pod);
    const nsLabels = this.handle.namespaceLabels(pod.metadata?.namespace ?? '');
    // A new or relabelled pod may satisfy the incoming pod's affinity.
    if (n !== undefined && pi.requiredAffinityTerms.length > 0 && podMatchesAllAffinityTerms(pi.requiredAffinityTerms, n)) return 'Queue';
    // A deleted or relabelled pod may stop violating anti-affinity (either direction).
    if (o !== undefined && (n === undefined || JSON.stringify(o.metadata?.labels) !== JSON.stringify(n.metadata?.labels))) {
      for (const t of pi.requiredAntiAffinityTerms) if (affinityTermMatches(t, o, undefined)) return 'Queue';
      const old = new PodInfo(o);
      for (const t of old.requiredAntiAffinityTerms) if (affinityTermMatches(t, pod, nsLabels)) return 'Queue';
    }
    return 'QueueSkip';
  }
}

function satisfyPodAffinity(s: PreFilterState, nodeInfo: NodeInfo): boolean {
  let podsExist = true;
  for (const t of s.podInfo.requiredAffinityTerms) {
    const tv = nodeInfo.labels[t.topologyKey];
    if (tv === undefined) return false;
    if ((s.affinityCounts.get(pairKey(t.topologyKey, tv)) ?? 0) <= 0) podsExist = false;
  }
  if (!podsExist) {
    // The first pod of a group with affinity to itself may land anywhere its terms' topologies exist.
    return s.affinityCounts.size === 0 && podMatchesAllAffinityTerms(s.podInfo.requiredAffinityTerms, s.podInfo.pod);
  }
  return true;
}

function satisfyPodAntiAffinity(s: PreFilterState, nodeInfo: NodeInfo): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  for (const t of s.podInfo.requiredAntiAffinityTerms) {
    const tv = nodeInfo.labels[t.topologyKey];
    if (tv !== undefined && (s.antiAffinityCounts.get(pairKey(t.topologyKey, tv)) ?? 0) > 0) return false;
  }
  return true;
}

function satisfyExistingPodsAntiAffinity(s: PreFilterState, nodeInfo: NodeInfo): boolean {
  if (s.existingAntiAffinityCounts.size === 0) return true;
  for (const [k, v] of Object.entries(nodeInfo.labels)) if ((s.existingAntiAffinityCounts.get(pairKey(k, v)) ?? 0) > 0) return false;
  return true;
}

export function create(args: unknown, h: Handle): InterPodAffinity {
  return new InterPodAffinity(h, (args ?? {}));
}
