/**
 * NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): rejects cordoned nodes
 * (`spec.unschedulable`) unless the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { tolerationsTolerateTaint } from '../../framework/corev1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { ActionType, type ClusterEventWithHint, type EnqueueExtensions, type Handle, type NodeObjectFilterPlugin, type QueueingHint } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeInfo } from '../../framework/types.js';
import { asNode, asPod } from '../_hints.js';

export const Name = names.NodeUnschedulable;
export const ErrReasonUnknownCondition = "node(s) had unknown conditions";
export const ErrReasonUnschedulable = 'node(s) were unschedulable';
export const TaintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
const statusUnknown = newStatus(Code.UnschedulableAndUnresolvable, ErrReasonUnknownCondition);
const statusUnschedulable = newStatus(Code.UnschedulableAndUnresolvable, ErrReasonUnschedulable);

function toleratesUnschedulable(pod: Pod): boolean {
  return tolerationsTolerateTaint(pod.spec?.tolerations, { key: TaintNodeUnschedulable, effect: 'NoSchedule' });
}

export class NodeUnschedulable implements NodeObjectFilterPlugin, EnqueueExtensions {
  readonly name = Name;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    if (nodeInfo.node === undefined) return statusUnknown;
    if (!nodeInfo.unschedulable) return Status.success();
    if (!toleratesUnschedulable(pod)) return statusUnschedulable;
    return Status.success();
  }

  /** The verdict reads `spec.unschedulable` of the node and whether the pod tolerates it. */
  nodeObjectFilterKey(_state: CycleState, pod: Pod): string {
    return toleratesUnschedulable(pod) ? 'tolerates' : '';
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAdd|NodeTaintChange' }, queueingHintFn: isSchedulableAfterNodeChange },
      { event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodTolerations, label: 'PodTolerationChange' }, queueingHintFn: isSchedulableAfterPodTolerationChange },
    ];
  }
}

function isSchedulableAfterNodeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const n = asNode(newObj);
  if (n === undefined) return 'Queue';
  const o = asNode(oldObj);
  const wasUnschedulable = o !== undefined && o.spec?.unschedulable === true;
  if (n.spec?.unschedulable !== true && (o === undefined || wasUnschedulable)) return 'Queue';
  return 'QueueSkip';
}

function isSchedulableAfterPodTolerationChange(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const p = asPod(newObj) ?? pod;
  return toleratesUnschedulable(p) ? 'Queue' : 'QueueSkip';
}

export function create(_args: unknown, _h: Handle): NodeUnschedulable {
  return new NodeUnschedulable();
}
