/**
 * TaintToleration (pkg/scheduler/framework/plugins/tainttoleration): Filter rejects a node whose first
 * untolerated NoSchedule/NoExecute taint it names; Score counts untolerated PreferNoSchedule taints,
 * normalised in reverse (semantics.md section 1).
 */
import type { Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { doNotScheduleTaint, findMatchingUntoleratedTaint, tolerationsTolerateTaint } from '../../framework/corev1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  maxNodeScore,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type Handle,
  type NodeObjectFilterPlugin,
  type NodeScore,
  type PreScorePlugin,
  type QueueingHint,
  type ScoreExtensions,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { defaultNormalizeScore } from '../../framework/normalize.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeTable } from '../../framework/node-table.js';
import type { NodeInfo } from '../../framework/types.js';
import { asNode, asPod } from '../_hints.js';

export const Name = names.TaintToleration;
/** Used by the kubelet's admission, not by this plugin's Filter. */
export const ErrReasonNotMatch = "node(s) had taints that the pod didn't tolerate";
export const untoleratedTaintReason = (t: Taint): string => `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`;

const preScoreStateKey = 'PreScore' + Name;

class PreScoreState implements StateData {
  constructor(readonly tolerationsPreferNoSchedule: Toleration[]) {}
  clone(): StateData {
    return this;
  }
}

function countIntolerableTaintsPreferNoSchedule(taints: readonly Taint[], tolerations: readonly Toleration[]): number {
  let n = 0;
  for (const t of taints) {
    if (t.effect !== 'PreferNoSchedule') continue;
    if (!tolerationsTolerateTaint(tolerations, t)) n++;
  }
  return n;
}

function preferNoScheduleTolerations(tols: readonly Toleration[] | undefined): Toleration[] {
  return (tols ?? []).filter((t) => t.effect === undefined || t.effect === '' || t.effect === 'PreferNoSchedule');
}

export class TaintToleration implements NodeObjectFilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;
  /** One status per taint object (node objects are immutable once cached). */
  private readonly statusByTaint = new WeakMap<Taint, Status>();

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const taints = nodeInfo.taints;
    if (taints.length === 0) return Status.success();
    const taint = findMatchingUntoleratedTaint(taints, pod.spec?.tolerations, doNotScheduleTaint);
    if (taint === undefined) return Status.success();
    let s = this.statusByTaint.get(taint);
    if (s === undefined) this.statusByTaint.set(taint, (s = newStatus(Code.UnschedulableAndUnresolvable, untoleratedTaintReason(taint))));
    return s;
  }

  /** The verdict reads the node's taints and the pod's tolerations. */
  nodeObjectFilterKey(_state: CycleState, pod: Pod): string {
    return JSON.stringify(pod.spec?.tolerations ?? null);
  }

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): Status {
    if (nodes.length === 0) return Status.success();
    state.write(preScoreStateKey, new PreScoreState(preferNoScheduleTolerations(pod.spec?.tolerations)));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  scoreValue(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    if (nodeInfo.taints.length === 0) return 0;
    const s = state.read<PreScoreState>(preScoreStateKey);
    const tols = s?.tolerationsPreferNoSchedule ?? preferNoScheduleTolerations(pod.spec?.tolerations);
    return countIntolerableTaintsPreferNoSchedule(nodeInfo.taints, tols);
  }

  /** An untainted node (the table counts taints) scores 0 without reading its NodeInfo. */
  scorePositions(state: CycleState, pod: Pod, table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean {
    const { taintCount, list } = table;
    for (let j = 0; j < positions.length; j++) {
      const i = positions[j] as number;
      (scores[j] as NodeScore).score = taintCount[i] === 0 ? 0 : this.scoreValue(state, pod, list[i] as NodeInfo);
    }
    return true;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    defaultNormalizeScore(maxNodeScore, true, scores);
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAdd|NodeTaintChange' }, queueingHintFn: isSchedulableAfterNodeChange },
      { event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodTolerations, label: 'PodTolerationChange' }, queueingHintFn: () => 'Queue' },
    ];
  }
}

function isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const n = asNode(newObj);
  if (n === undefined) return 'Queue';
  const p = asPod(pod) ?? pod;
  const tolerated = findMatchingUntoleratedTaint(n.spec?.taints, p.spec?.tolerations, doNotScheduleTaint) === undefined;
  if (!tolerated) return 'QueueSkip';
  const o = asNode(oldObj);
  if (o === undefined) return 'Queue';
  const wasTolerated = findMatchingUntoleratedTaint(o.spec?.taints, p.spec?.tolerations, doNotScheduleTaint) === undefined;
  return wasTolerated ? 'QueueSkip' : 'Queue';
}

export function create(_args: unknown, _h: Handle): TaintToleration {
  return new TaintToleration();
}
