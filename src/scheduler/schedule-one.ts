/**
 * One scheduling cycle (pkg/scheduler/schedule_one.go): snapshot -> PreFilter -> Filter over nodes from
 * the rotating start index until enough feasible nodes are found -> PreScore/Score -> select the host
 * (highest total, ties by reservoir sampling) -> on failure PostFilter (preemption) -> assume, Reserve,
 * Permit. Binding is the driver's business (scheduler.ts); this part is synchronous and offline-capable.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Cache } from './cache/cache.js';
import { Snapshot } from './cache/snapshot.js';
import { CycleState } from './framework/cycle-state.js';
import { numFeasibleNodesToFind } from './framework/feasible.js';
import { FitError, NodeToStatus, errNoNodesAvailableMessage, newDiagnosis, type Diagnosis } from './framework/fit-error.js';
import type { NominatingInfo } from './framework/interfaces.js';
import type { Framework, NodePluginScores } from './framework/runtime.js';
import { Code, Status, newStatus } from './framework/status.js';
import type { NodeInfo } from './framework/types.js';

export interface ScheduleResult {
  suggestedHost: string;
  evaluatedNodes: number;
  feasibleNodes: number;
}

/** The outcome of `schedulePod`: a host, or why not. */
export type SchedulePodOutcome = { ok: true; result: ScheduleResult } | { ok: false; status: Status; fitError?: FitError };

/** The outcome of a scheduling cycle. On success the pod is assumed in the cache on `nodeName`. */
export type CycleOutcome =
  | { kind: 'assumed'; assumedPod: Pod; nodeName: string; state: CycleState; result: ScheduleResult }
  | { kind: 'failed'; status: Status; nominatingInfo: NominatingInfo | undefined; fitError?: FitError };

export const clearNominatedNode: NominatingInfo = { nominatedNodeName: '', mode: 'Override' };

export interface SchedulingAlgorithmOptions {
  cache: Cache;
  /** Global percentageOfNodesToScore; a profile's own value wins. 0/undefined: adaptive. */
  percentageOfNodesToScore?: number;
  /** Uniform random in [0, 1) for host tie-breaks. */
  random?: () => number;
  /** Called when an assumed pod was nominated, to drop the nomination. */
  onAssumed?: (pod: Pod) => void;
}

export class SchedulingAlgorithm {
  readonly cache: Cache;
  readonly snapshot = new Snapshot();
  /** Where the next cycle's filter loop starts (rotates so every node gets examined). */
  nextStartNodeIndex = 0;
  private readonly percentage: number | undefined;
  private readonly random: () => number;
  private readonly onAssumed: ((pod: Pod) => void) | undefined;
  /**
   * The statuses map of the last successful cycle's diagnosis, cleared for the next one: a cycle records
   * a status for every node it rejects (thousands when few nodes fit), and only failures keep theirs.
   */
  private spareNodeToStatus: NodeToStatus | undefined = undefined;
  /** The feasible nodes' positions of the last cycle that judged by position (reused: see `findNodesThatPassFilters`). */
  private positions = new Int32Array(0);

  constructor(opts: SchedulingAlgorithmOptions) {
    this.cache = opts.cache;
    this.percentage = opts.percentageOfNodesToScore;
    this.random = opts.random ?? Math.random;
    this.onAssumed = opts.onAssumed;
  }

  private numFeasibleNodesToFind(fwk: Framework, numAllNodes: number): number {
    return numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? this.percentage, numAllNodes);
  }

  /** `schedulingCycle`: schedulePod, PostFilter on failure, then assume + Reserve + Permit. */
  schedulingCycle(fwk: Framework, pod: Pod): CycleOutcome {
    const state = new CycleState();
    const out = this.schedulePod(fwk, state, pod);
    if (!out.ok) {
      if (out.fitError === undefined) {
        const nominatingInfo = out.status.code === Code.UnschedulableAndUnresolvable && out.status.err?.message === errNoNodesAvailableMessage ? clearNominatedNode : undefined;
        return { kind: 'failed', status: out.status, nominatingInfo };
      }
      const fitError = out.fitError;
      if (!fwk.hasPostFilterPlugins()) return { kind: 'failed', status: newStatus(Code.Unschedulable).withError(fitError), nominatingInfo: clearNominatedNode, fitError };
      const { result, status } = fwk.runPostFilterPlugins(state, pod, fitError.diagnosis.nodeToStatus);
      fitError.diagnosis.postFilterMsg = status.message();
      return { kind: 'failed', status: newStatus(Code.Unschedulable).withError(fitError), nominatingInfo: result?.nominatingInfo, fitError };
    }
    const host = out.result.suggestedHost;
    const assumedPod: Pod = { ...pod, spec: { ...(pod.spec ?? { containers: [] }), nodeName: host } };
    try {
      this.cache.assumePod(assumedPod);
    } catch (e) {
      return { kind: 'failed', status: Status.asStatus(e instanceof Error ? e : new Error(String(e))), nominatingInfo: clearNominatedNode };
    }
    this.onAssumed?.(assumedPod);
    const rs = fwk.runReservePluginsReserve(state, assumedPod, host);
    if (!rs.isSuccess()) {
      fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.cache.forgetPod(assumedPod);
      return { kind: 'failed', status: this.singleNodeFailure(pod, host, rs), nominatingInfo: clearNominatedNode };
    }
    const ps = fwk.runPermitPlugins(state, assumedPod, host);
    if (!ps.isSuccess()) {
      fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.cache.forgetPod(assumedPod);
      return { kind: 'failed', status: this.singleNodeFailure(pod, host, ps), nominatingInfo: clearNominatedNode };
    }
    return { kind: 'assumed', assumedPod, nodeName: host, state, result: out.result };
  }

  /** A Reserve/Permit rejection becomes a FitError over the one chosen node. */
  private singleNodeFailure(pod: Pod, host: string, s: Status): Status {
    if (!s.isRejected()) return s;
    const d = newDiagnosis();
    d.nodeToStatus.set(host, s);
    if (s.failedPlugin() !== '') d.unschedulablePlugins.add(s.failedPlugin());
    return newStatus(s.code).withError(new FitError(pod, 1, d));
  }

  /** `schedulePod`. */
  schedulePod(fwk: Framework, state: CycleState, pod: Pod): SchedulePodOutcome {
    this.cache.updateSnapshot(this.snapshot);
    fwk.setSnapshot(this.snapshot);
    if (this.snapshot.numNodes() === 0) {
      return { ok: false, status: newStatus(Code.UnschedulableAndUnresolvable).withError(new Error(errNoNodesAvailableMessage)) };
    }
    const fit = this.findNodesThatFitPod(fwk, state, pod);
    if (fit.error !== undefined) return { ok: false, status: fit.error };
    const feasible = fit.feasibleNodes;
    if (feasible.length === 0) {
      const fe = new FitError(pod, this.snapshot.numNodes(), fit.diagnosis);
      return { ok: false, status: newStatus(Code.Unschedulable).withError(fe), fitError: fe };
    }
    const rejected = fit.diagnosis.nodeToStatus.len();
    if (feasible.length === 1) {
      this.recycle(fit.diagnosis.nodeToStatus);
      return { ok: true, result: { suggestedHost: (feasible[0] as NodeInfo).name, evaluatedNodes: 1 + rejected, feasibleNodes: 1 } };
    }
    state.nodePositions = fit.positions;
    const pr = this.prioritizeNodes(fwk, state, pod, feasible);
    // The positions live in a buffer the next cycle reuses.
    state.nodePositions = undefined;
    if (!pr.status.isSuccess()) return { ok: false, status: pr.status };
    const host = selectHost(pr.scores, this.random);
    this.recycle(fit.diagnosis.nodeToStatus);
    return { ok: true, result: { suggestedHost: host, evaluatedNodes: feasible.length + rejected, feasibleNodes: feasible.length } };
  }

  /** Keeps a diagnosis' statuses map that nothing refers to any more for the next cycle. */
  private recycle(m: NodeToStatus): void {
    m.clear();
    this.spareNodeToStatus = m;
  }

  private takeSpareNodeToStatus(): NodeToStatus {
    const m = this.spareNodeToStatus ?? new NodeToStatus();
    this.spareNodeToStatus = undefined;
    return m;
  }

  /** `findNodesThatFitPod`. */
  findNodesThatFitPod(fwk: Framework, state: CycleState, pod: Pod): { feasibleNodes: NodeInfo[]; positions?: Int32Array; diagnosis: Diagnosis; error?: Status } {
    const diagnosis = newDiagnosis(this.takeSpareNodeToStatus());
    const allNodes = this.snapshot.list();
    const pre = fwk.runPreFilterPlugins(state, pod);
    diagnosis.unschedulablePlugins = pre.unschedulablePlugins;
    if (!pre.status.isSuccess()) {
      if (!pre.status.isRejected()) return { feasibleNodes: [], diagnosis, error: pre.status };
      // Every node gets the same status, so preemption sees the rejection too.
      diagnosis.nodeToStatus.setAbsentNodesStatus(pre.status);
      diagnosis.preFilterMsg = pre.status.message();
      if (pre.status.failedPlugin() !== '') diagnosis.unschedulablePlugins.add(pre.status.failedPlugin());
      return { feasibleNodes: [], diagnosis };
    }
    const nnn = pod.status?.nominatedNodeName ?? '';
    if (nnn !== '') {
      const ni = this.snapshot.get(nnn);
      if (ni !== undefined) {
        // A scratch diagnosis: when the nominated node fails, the loop below evaluates it again and
        // records its status once (upstream overwrites the same map entry).
        const r = this.findNodesThatPassFilters(fwk, state, pod, newDiagnosis(), [ni]);
        if (r.error === undefined && r.feasible.length !== 0) return { feasibleNodes: r.feasible, diagnosis };
      }
    }
    let nodes: readonly NodeInfo[] = allNodes;
    if (pre.result?.nodeNames !== undefined) {
      const subset: NodeInfo[] = [];
      for (const n of pre.result.nodeNames) {
        const ni = this.snapshot.get(n);
        if (ni !== undefined) subset.push(ni);
      }
      nodes = subset;
      diagnosis.nodeToStatus.setAbsentNodesStatus(newStatus(Code.UnschedulableAndUnresolvable, `node(s) didn't satisfy plugin(s) [${[...pre.unschedulablePlugins].sort().join(' ')}]`));
    }
    const r = this.findNodesThatPassFilters(fwk, state, pod, diagnosis, nodes);
    const processed = r.feasible.length + diagnosis.nodeToStatus.len();
    if (allNodes.length > 0) this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % allNodes.length;
    if (r.error !== undefined) return { feasibleNodes: [], diagnosis, error: r.error };
    return r.positions !== undefined ? { feasibleNodes: r.feasible, positions: r.positions, diagnosis } : { feasibleNodes: r.feasible, diagnosis };
  }

  /**
   * `findNodesThatPassFilters`: checks nodes in order from `nextStartNodeIndex`, stopping once
   * `numFeasibleNodesToFind` feasible nodes are found (upstream checks in parallel and cancels then).
   * When it judged nodes by position, `positions` holds the feasible nodes' positions in the snapshot's
   * list (valid until the next cycle).
   */
  findNodesThatPassFilters(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: readonly NodeInfo[]): { feasible: NodeInfo[]; positions?: Int32Array; error?: Status } {
    const numAllNodes = nodes.length;
    if (numAllNodes === 0) return { feasible: [] };
    const numNodesToFind = this.numFeasibleNodesToFind(fwk, numAllNodes);
    if (!fwk.hasFilterPlugins()) {
      const feasible: NodeInfo[] = [];
      for (let i = 0; i < numNodesToFind; i++) feasible.push(nodes[(this.nextStartNodeIndex + i) % numAllNodes] as NodeInfo);
      return { feasible };
    }
    // Room for every node the loop may keep, so the list is not regrown (and copied) as it fills.
    const found: NodeInfo[] = new Array<NodeInfo>(numNodesToFind);
    let n = 0;
    const start = this.nextStartNodeIndex;
    // Judging by position reads the node table's columns, not the NodeInfos (only the feasible ones are taken).
    const byPosition = fwk.filterByPosition(state, pod, nodes);
    const names = this.snapshot.table.names;
    if (byPosition !== undefined && this.positions.length < numNodesToFind) this.positions = new Int32Array(Math.max(numNodesToFind, 2 * this.positions.length));
    const positions = this.positions;
    let lastRejection: Status | undefined;
    for (let i = 0; i < numAllNodes; i++) {
      const at = (start + i) % numAllNodes;
      const s = byPosition !== undefined ? byPosition(at) : fwk.runFilterPluginsWithNominatedPods(state, pod, nodes[at] as NodeInfo);
      if (s.code === Code.Error) {
        found.length = n;
        return { feasible: found, error: s };
      }
      if (s.isSuccess()) {
        if (byPosition !== undefined) positions[n] = at;
        found[n++] = nodes[at] as NodeInfo;
        if (n >= numNodesToFind) break;
        continue;
      }
      // Each node is visited once per loop (and the nominated-node check happens before the loop).
      if (byPosition !== undefined) diagnosis.nodeToStatus.appendNew(names[at] as string, s, at);
      else {
        const ni = nodes[at] as NodeInfo;
        diagnosis.nodeToStatus.appendNew(ni.name, s, ni.snapshotIndex);
      }
      if (s === lastRejection) continue;
      lastRejection = s;
      const plugin = s.failedPlugin();
      if (plugin !== '') {
        if (s.code === Code.Pending) diagnosis.pendingPlugins.add(plugin);
        else diagnosis.unschedulablePlugins.add(plugin);
      }
    }
    found.length = n;
    return byPosition !== undefined ? { feasible: found, positions: positions.subarray(0, n) } : { feasible: found };
  }

  /** `prioritizeNodes`: all 1 without score plugins. */
  prioritizeNodes(fwk: Framework, state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { scores: NodePluginScores[]; status: Status } {
    if (!fwk.hasScorePlugins()) return { scores: nodes.map((n) => ({ name: n.name, totalScore: 1 })), status: Status.success() };
    const ps = fwk.runPreScorePlugins(state, pod, nodes);
    if (!ps.isSuccess()) return { scores: [], status: ps };
    return fwk.runScorePlugins(state, pod, nodes);
  }
}

/** `selectHost`: the highest total; ties broken uniformly by reservoir sampling. */
export function selectHost(scores: readonly NodePluginScores[], random: () => number): string {
  const first = scores[0];
  if (first === undefined) throw new Error('empty priorityList');
  let maxScore = first.totalScore;
  let selected = first.name;
  let cntOfMaxScore = 1;
  for (let i = 1; i < scores.length; i++) {
    const ns = scores[i] as NodePluginScores;
    if (ns.totalScore > maxScore) {
      maxScore = ns.totalScore;
      selected = ns.name;
      cntOfMaxScore = 1;
    } else if (ns.totalScore === maxScore) {
      cntOfMaxScore++;
      if (Math.floor(random() * cntOfMaxScore) === 0) selected = ns.name;
    }
  }
  return selected;
}

export { NodeToStatus };
