/**
 * DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption and framework/preemption): when a
 * pod fits nowhere, find nodes where removing lower-priority pods makes it fit, preferring candidates
 * that violate fewer PodDisruptionBudgets, then by upstream's tie-break chain; nominate the pod there and
 * evict the victims. Messages follow semantics.md section 3.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector } from '../../../api/labels.js';
import { podPriority } from '../../framework/corev1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { FitError, NodeToStatus, newDiagnosis } from '../../framework/fit-error.js';
import type { Handle, NodeToStatusReader, PodDisruptionBudgetLike, PostFilterPlugin, PostFilterResult } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeInfo, PodInfo } from '../../framework/types.js';

export const Name = names.DefaultPreemption;
export const msgPreemptionPolicyNever = 'not eligible due to preemptionPolicy=Never.';
export const msgTerminatingPodOnNominatedNode = 'not eligible due to a terminating pod on the nominated node.';
export const msgPreemptionNotHelpful = 'Preemption is not helpful for scheduling';
export const msgNoVictims = 'No preemption victims found for incoming pod';
export const msgNoCandidate = 'no candidate node for preemption';
/** Reason of the DisruptionTarget condition set on victims (`v1.PodReasonPreemptionByScheduler`). */
export const PodReasonPreemptionByScheduler = 'PreemptionByScheduler';

export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage?: number;
  minCandidateNodesAbsolute?: number;
}

export interface Victims {
  pods: PodInfo[];
  numPDBViolations: number;
}

export interface Candidate {
  name: string;
  victims: Victims;
}

/** `util.GetPodStartTime`: status.startTime, or now for pods that have not started. */
function podStartTime(pod: Pod, now: number): number {
  const s = pod.status?.startTime;
  if (s === undefined) return now;
  const t = Date.parse(s);
  return Number.isNaN(t) ? now : t;
}

/** `util.MoreImportantPod`: higher priority, then earlier start. */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const p1 = podPriority(a);
  const p2 = podPriority(b);
  if (p1 !== p2) return p1 > p2;
  return podStartTime(a, now) < podStartTime(b, now);
}

function podTerminatingByPreemption(p: Pod): boolean {
  if (p.metadata?.deletionTimestamp === undefined) return false;
  for (const c of p.status?.conditions ?? []) {
    if (c.type === 'DisruptionTarget') return c.status === 'True' && c.reason === PodReasonPreemptionByScheduler;
  }
  return false;
}

/** `filterPodsWithPDBViolation`: splits pods (in order) into PDB-violating and non-violating. */
export function filterPodsWithPDBViolation(podInfos: readonly PodInfo[], pdbs: readonly PodDisruptionBudgetLike[]): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = pdbs.map((p) => p.status?.disruptionsAllowed ?? 0);
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const pi of podInfos) {
    const pod = pi.pod;
    let violated = false;
    const labels = pod.metadata?.labels;
    if (labels !== undefined && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        if (pdb.metadata?.namespace !== pod.metadata?.namespace) return;
        let sel;
        try {
          sel = labelSelectorAsSelector(pdb.spec?.selector);
        } catch {
          return;
        }
        // A nil or empty selector matches nothing.
        if (sel.isEmpty() || !sel.matches(labels)) return;
        if (pdb.status?.disruptedPods !== undefined && Object.prototype.hasOwnProperty.call(pdb.status.disruptedPods, pod.metadata?.name ?? '')) return;
        allowed[i] = (allowed[i] ?? 0) - 1;
        if ((allowed[i] ?? 0) < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pi);
  }
  return { violating, nonViolating };
}

/** `pickOneNodeForPreemption`: fewest PDB violations, lowest top victim priority, lowest priority sum, fewest victims, latest start. */
export function pickOneNodeForPreemption(candidates: readonly Candidate[], now: number): Candidate | undefined {
  if (candidates.length === 0) return undefined;
  const scoreFuncs: ((c: Candidate) => number)[] = [
    (c) => -c.victims.numPDBViolations,
    (c) => -podPriority((c.victims.pods[0] as PodInfo).pod),
    (c) => {
      let sum = 0;
      for (const p of c.victims.pods) sum += podPriority(p.pod) + 2147483648;
      return -sum;
    },
    (c) => -c.victims.pods.length,
    (c) => earliestPodStartTime(c.victims, now) ?? Number.MIN_SAFE_INTEGER,
  ];
  let list = candidates.slice();
  for (const f of scoreFuncs) {
    let selected: Candidate[] = [];
    let maxScore = -Infinity;
    for (const c of list) {
      const s = f(c);
      if (s > maxScore) {
        maxScore = s;
        selected = [];
      }
      if (s === maxScore) selected.push(c);
    }
    if (selected.length === 1) return selected[0];
    list = selected;
  }
  return list[0];
}

/** `util.GetEarliestPodStartTime`: the earliest start among the highest-priority victims. */
function earliestPodStartTime(v: Victims, now: number): number | undefined {
  const first = v.pods[0];
  if (first === undefined) return undefined;
  let earliest = podStartTime(first.pod, now);
  let maxPriority = podPriority(first.pod);
  for (const p of v.pods) {
    const prio = podPriority(p.pod);
    if (prio === maxPriority) {
      const t = podStartTime(p.pod, now);
      if (t < earliest) earliest = t;
    } else if (prio > maxPriority) {
      maxPriority = prio;
      earliest = podStartTime(p.pod, now);
    }
  }
  return earliest;
}

/**
 * `m.get(list[i].name)` as a function of `i`: from the statuses laid out by position when the filter loop
 * recorded them with positions in `list` (no name index over every node), else by name.
 */
function statusesByPosition(m: NodeToStatusReader, list: readonly NodeInfo[]): (i: number) => Status {
  if (m instanceof NodeToStatus) {
    const recorded = m.byPosition(list);
    if (recorded !== undefined) {
      const absent = m.absentNodesStatus();
      return (i) => recorded[i] ?? absent;
    }
  }
  return (i) => m.get((list[i] as NodeInfo).name);
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = Name;
  private readonly minPct: number;
  private readonly minAbs: number;
  /** Injectable "now" for victim start times. */
  now: () => number = Date.now;

  constructor(
    private readonly handle: Handle,
    args: DefaultPreemptionArgs = {},
  ) {
    this.minPct = args.minCandidateNodesPercentage ?? 10;
    this.minAbs = args.minCandidateNodesAbsolute ?? 100;
  }

  postFilter(state: CycleState, pod: Pod, m: NodeToStatusReader): { result?: PostFilterResult; status: Status } {
    const { result, status } = this.preempt(state, pod, m);
    const msg = status.message();
    if (msg.length > 0) return { ...(result !== undefined ? { result } : {}), status: new Status(status.code, [`preemption: ${msg}`]) };
    return { ...(result !== undefined ? { result } : {}), status };
  }

  /** `PodEligibleToPreemptOthers`. */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status | undefined): { ok: boolean; msg: string } {
    if (pod.spec?.preemptionPolicy === 'Never') return { ok: false, msg: msgPreemptionPolicyNever };
    const nom = pod.status?.nominatedNodeName ?? '';
    if (nom !== '') {
      if (nominatedNodeStatus?.code === Code.UnschedulableAndUnresolvable) return { ok: true, msg: '' };
      const ni = this.handle.snapshot().get(nom);
      if (ni !== undefined) {
        const prio = podPriority(pod);
        for (const p of ni.pods) if (podPriority(p.pod) < prio && podTerminatingByPreemption(p.pod)) return { ok: false, msg: msgTerminatingPodOnNominatedNode };
      }
    }
    return { ok: true, msg: '' };
  }

  /** `Evaluator.Preempt`. */
  preempt(state: CycleState, pod: Pod, m: NodeToStatusReader): { result?: PostFilterResult; status: Status } {
    const nom = pod.status?.nominatedNodeName ?? '';
    const elig = this.podEligibleToPreemptOthers(pod, nom !== '' ? m.get(nom) : undefined);
    if (!elig.ok) return { status: newStatus(Code.Unschedulable, elig.msg) };
    const allNodes = this.handle.snapshot().list();
    if (allNodes.length === 0) return { status: Status.error('no nodes available') };
    const { candidates, nodeStatuses } = this.findCandidates(state, pod, allNodes, m);
    if (candidates.length === 0) {
      const d = newDiagnosis();
      const fe = new FitError(pod, allNodes.length, { ...d, nodeToStatus: nodeStatuses });
      return { result: { nominatingInfo: { nominatedNodeName: '', mode: 'Override' } }, status: newStatus(Code.Unschedulable, fe.message) };
    }
    const best = pickOneNodeForPreemption(candidates, this.now());
    if (best === undefined || best.name === '') return { status: newStatus(Code.Unschedulable, msgNoCandidate) };
    this.prepareCandidate(best, pod);
    return { result: { nominatingInfo: { nominatedNodeName: best.name, mode: 'Override' } }, status: Status.success() };
  }

  /** `findCandidates`: nodes where preemption might help, dry-run from a random offset. */
  findCandidates(state: CycleState, pod: Pod, allNodes: readonly NodeInfo[], m: NodeToStatusReader): { candidates: Candidate[]; nodeStatuses: NodeToStatus } {
    const unresolvable = newStatus(Code.UnschedulableAndUnresolvable, msgPreemptionNotHelpful);
    const notHelpful = new NodeToStatus();
    const potential: NodeInfo[] = [];
    const statusAt = statusesByPosition(m, allNodes);
    for (let i = 0; i < allNodes.length; i++) {
      const n = allNodes[i] as NodeInfo;
      if (statusAt(i).code === Code.UnschedulableAndUnresolvable) notHelpful.appendNew(n.name, unresolvable);
      else potential.push(n);
    }
    if (potential.length === 0) {
      const api = this.handle.apiActions();
      if (api !== undefined && (pod.status?.nominatedNodeName ?? '') !== '') void api.clearNominatedNodeName(pod).catch(() => undefined);
      return { candidates: [], nodeStatuses: notHelpful };
    }
    const pdbs = this.handle.apiActions()?.podDisruptionBudgets() ?? [];
    const offset = Math.floor(this.handle.random() * potential.length);
    const numCandidates = this.calculateNumCandidates(potential.length);
    const { candidates, nodeStatuses } = this.dryRunPreemption(state, pod, potential, pdbs, offset, numCandidates);
    // Disjoint: potential nodes are never in notHelpful.
    notHelpful.forEachExplicitNode((n, s) => nodeStatuses.appendNew(n, s));
    return { candidates, nodeStatuses };
  }

  calculateNumCandidates(numNodes: number): number {
    let n = Math.trunc((numNodes * this.minPct) / 100);
    if (n < this.minAbs) n = this.minAbs;
    if (n > numNodes) n = numNodes;
    return n;
  }

  /** `DryRunPreemption`: non-violating candidates first; stops once enough are found. */
  dryRunPreemption(state: CycleState, pod: Pod, potential: readonly NodeInfo[], pdbs: readonly PodDisruptionBudgetLike[], offset: number, numCandidates: number): { candidates: Candidate[]; nodeStatuses: NodeToStatus } {
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    const nodeStatuses = new NodeToStatus();
    const prio = podPriority(pod);
    const noVictims = newStatus(Code.UnschedulableAndUnresolvable, msgNoVictims);
    for (let i = 0; i < potential.length; i++) {
      const original = potential[(offset + i) % potential.length] as NodeInfo;
      // Same outcome as selectVictimsOnNode without copying a node that has no lower-priority pod.
      if (original.lowestPodPriority() >= prio) {
        nodeStatuses.appendNew(original.name, noVictims, original.snapshotIndex);
        continue;
      }
      const nodeInfoCopy = original.snapshot();
      const stateCopy = state.clone();
      const r = this.selectVictimsOnNode(stateCopy, pod, nodeInfoCopy, pdbs);
      let status = r.status;
      if (status.isSuccess() && r.victims.length !== 0) {
        const c: Candidate = { name: nodeInfoCopy.name, victims: { pods: r.victims, numPDBViolations: r.numViolating } };
        if (r.numViolating === 0) {
          if (nonViolating.length < numCandidates) nonViolating.push(c);
        } else if (violating.length < numCandidates) violating.push(c);
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= numCandidates) break;
        continue;
      }
      if (status.isSuccess() && r.victims.length === 0) status = Status.error(`expected at least one victim pod on node "${nodeInfoCopy.name}"`);
      nodeStatuses.appendNew(nodeInfoCopy.name, status, original.snapshotIndex);
    }
    return { candidates: [...nonViolating, ...violating], nodeStatuses };
  }

  /** `SelectVictimsOnNode`: remove all lower-priority pods, then reprieve as many as possible. */
  selectVictimsOnNode(state: CycleState, pod: Pod, nodeInfo: NodeInfo, pdbs: readonly PodDisruptionBudgetLike[]): { victims: PodInfo[]; numViolating: number; status: Status } {
    const h = this.handle;
    const removePod = (pi: PodInfo): Status => {
      nodeInfo.removePod(pi.pod);
      return h.runPreFilterExtensionRemovePod(state, pod, pi, nodeInfo);
    };
    const addPod = (pi: PodInfo): Status => {
      nodeInfo.addPodInfo(pi);
      return h.runPreFilterExtensionAddPod(state, pod, pi, nodeInfo);
    };
    const prio = podPriority(pod);
    const potentialVictims: PodInfo[] = [];
    for (const pi of nodeInfo.pods.slice()) {
      if (podPriority(pi.pod) < prio) {
        potentialVictims.push(pi);
        const s = removePod(pi);
        if (!s.isSuccess()) return { victims: [], numViolating: 0, status: s };
      }
    }
    if (potentialVictims.length === 0) return { victims: [], numViolating: 0, status: newStatus(Code.UnschedulableAndUnresolvable, msgNoVictims) };
    const fits = h.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
    if (!fits.isSuccess()) return { victims: [], numViolating: 0, status: fits };
    const now = this.now();
    const byImportance = (a: PodInfo, b: PodInfo): number => (moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0);
    potentialVictims.sort(byImportance);
    const { violating, nonViolating } = filterPodsWithPDBViolation(potentialVictims, pdbs);
    const victims: PodInfo[] = [];
    let numViolating = 0;
    const reprieve = (pi: PodInfo): { fits: boolean; err?: Status } => {
      const a = addPod(pi);
      if (!a.isSuccess()) return { fits: false, err: a };
      const st = h.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
      const ok = st.isSuccess();
      if (!ok) {
        const r = removePod(pi);
        if (!r.isSuccess()) return { fits: false, err: r };
        victims.push(pi);
      }
      return { fits: ok };
    };
    for (const pi of violating) {
      const r = reprieve(pi);
      if (r.err !== undefined) return { victims: [], numViolating: 0, status: r.err };
      if (!r.fits) numViolating++;
    }
    for (const pi of nonViolating) {
      const r = reprieve(pi);
      if (r.err !== undefined) return { victims: [], numViolating: 0, status: r.err };
    }
    if (violating.length !== 0 && nonViolating.length !== 0) victims.sort(byImportance);
    return { victims, numViolating, status: Status.success() };
  }

  /** `prepareCandidate`: evict the victims and clear lower-priority nominations on the node. */
  private prepareCandidate(c: Candidate, pod: Pod): void {
    const api = this.handle.apiActions();
    if (api === undefined) return;
    for (const v of c.victims.pods) void api.preemptVictim(v.pod, pod, c.name).catch(() => undefined);
    const prio = podPriority(pod);
    for (const pi of this.handle.nominatedPodsForNode(c.name)) {
      if (podPriority(pi.pod) < prio) void api.clearNominatedNodeName(pi.pod).catch(() => undefined);
    }
  }
}

export function create(args: unknown, h: Handle): DefaultPreemption {
  return new DefaultPreemption(h, (args ?? {}));
}
