/**
 * NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity): nodeSelector plus required node affinity
 * as a Filter, `matchFields metadata.name` narrowing in PreFilter, preferred terms as a Score
 * (semantics.md section 2).
 */
import type { NodeAffinity as NodeAffinitySpec, Pod } from 'kubernetes-types/core/v1.js';
import { NodeSelectorMatcher, PreferredSchedulingTerms, RequiredNodeAffinity } from '../../framework/corev1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  maxNodeScore,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type Handle,
  type NodeObjectFilterPlugin,
  type NodeScore,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueueingHint,
  type ScoreExtensions,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { defaultNormalizeScore } from '../../framework/normalize.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeInfo } from '../../framework/types.js';
import { asNode } from '../_hints.js';

export const Name = names.NodeAffinity;
export const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
export const errReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
export const errReasonConflict = 'pod affinity terms conflict';

const preFilterStateKey = 'PreFilter' + Name;
const statusPod = newStatus(Code.UnschedulableAndUnresolvable, ErrReasonPod);
const statusEnforced = newStatus(Code.UnschedulableAndUnresolvable, errReasonEnforced);
const preScoreStateKey = 'PreScore' + Name;

/** NodeAffinityArgs. */
export interface NodeAffinityArgs {
  /** Profile-level affinity added to every pod (`addedAffinity`). */
  addedAffinity?: NodeAffinitySpec;
}

class PreFilterState implements StateData {
  constructor(readonly required: RequiredNodeAffinity) {}
  clone(): StateData {
    return this;
  }
}

class PreScoreState implements StateData {
  constructor(readonly preferred: PreferredSchedulingTerms) {}
  clone(): StateData {
    return this;
  }
}

export class NodeAffinity implements PreFilterPlugin, NodeObjectFilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;
  private readonly addedNodeSelector: NodeSelectorMatcher | undefined;
  private readonly addedPrefSchedTerms: PreferredSchedulingTerms | undefined;

  constructor(args: NodeAffinityArgs = {}) {
    const a = args.addedAffinity;
    const req = a?.requiredDuringSchedulingIgnoredDuringExecution;
    this.addedNodeSelector = req !== undefined ? new NodeSelectorMatcher(req) : undefined;
    const pref = a?.preferredDuringSchedulingIgnoredDuringExecution;
    this.addedPrefSchedTerms = pref !== undefined && pref.length > 0 ? new PreferredSchedulingTerms(pref) : undefined;
  }

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const affinity = pod.spec?.affinity;
    const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (required === undefined && this.addedNodeSelector === undefined && pod.spec?.nodeSelector === undefined) {
      return { status: newStatus(Code.Skip) };
    }
    state.write(preFilterStateKey, new PreFilterState(new RequiredNodeAffinity(pod)));
    if (required === undefined || required.nodeSelectorTerms.length === 0) return { status: Status.success() };
    let nodeNames: Set<string> | undefined;
    for (const t of required.nodeSelectorTerms) {
      let termNodeNames: Set<string> | undefined;
      for (const r of t.matchFields ?? []) {
        if (r.key === 'metadata.name' && r.operator === 'In') {
          const s = new Set(r.values ?? []);
          if (termNodeNames === undefined) termNodeNames = s;
          else termNodeNames = new Set([...termNodeNames].filter((n) => s.has(n)));
        }
      }
      // A term without a node-name restriction admits every node (terms are ORed).
      if (termNodeNames === undefined) return { status: Status.success() };
      nodeNames ??= new Set();
      for (const n of termNodeNames) nodeNames.add(n);
    }
    if (nodeNames !== undefined && nodeNames.size === 0) return { status: newStatus(Code.UnschedulableAndUnresolvable, errReasonConflict) };
    if (nodeNames !== undefined) return { result: { nodeNames }, status: Status.success() };
    return { status: Status.success() };
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    if (nodeInfo.node === undefined) return Status.error('node not found');
    if (this.addedNodeSelector !== undefined && !this.addedNodeSelector.matches(nodeInfo.labels, nodeInfo.name)) {
      return statusEnforced;
    }
    const s = state.read<PreFilterState>(preFilterStateKey);
    const required = s?.required ?? new RequiredNodeAffinity(pod);
    if (!required.matchLabels(nodeInfo.labels, nodeInfo.name)) return statusPod;
    return Status.success();
  }

  /**
   * The verdict reads the node's name and labels, this plugin's `addedAffinity` and the pod's nodeSelector
   * and required node affinity (PreFilter's `RequiredNodeAffinity` is built from those two alone).
   */
  nodeObjectFilterKey(_state: CycleState, pod: Pod): string {
    const spec = pod.spec;
    return JSON.stringify([spec?.nodeSelector ?? null, spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null]);
  }

  preScore(state: CycleState, pod: Pod, _nodes: readonly NodeInfo[]): Status {
    const pref = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    if (pref === undefined && this.addedPrefSchedTerms === undefined) return newStatus(Code.Skip);
    state.write(preScoreStateKey, new PreScoreState(new PreferredSchedulingTerms(pref ?? [])));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  scoreValue(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    let count = 0;
    if (this.addedPrefSchedTerms !== undefined) count += this.addedPrefSchedTerms.score(nodeInfo.labels, nodeInfo.name);
    const s = state.read<PreScoreState>(preScoreStateKey);
    const preferred = s?.preferred ?? new PreferredSchedulingTerms(pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []);
    count += preferred.score(nodeInfo.labels, nodeInfo.name);
    return count;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    defaultNormalizeScore(maxNodeScore, false, scores);
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'NodeAdd|NodeLabelChange' },
        queueingHintFn: (pod, oldObj, newObj) => this.isSchedulableAfterNodeChange(pod, oldObj, newObj),
      },
    ];
  }

  private isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const n = asNode(newObj);
    if (n === undefined) return 'Queue';
    const labels = n.metadata?.labels;
    const name = n.metadata?.name ?? '';
    if (this.addedNodeSelector !== undefined && !this.addedNodeSelector.matches(labels, name)) return 'QueueSkip';
    const required = new RequiredNodeAffinity(pod);
    if (!required.matchLabels(labels, name)) return 'QueueSkip';
    const o = asNode(oldObj);
    if (o === undefined) return 'Queue';
    return required.matchLabels(o.metadata?.labels, o.metadata?.name ?? '') ? 'QueueSkip' : 'Queue';
  }
}

export function create(args: unknown, _h: Handle): NodeAffinity {
  return new NodeAffinity((args ?? {}));
}
