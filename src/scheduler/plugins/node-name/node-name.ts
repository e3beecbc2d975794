/** NodeName (pkg/scheduler/framework/plugins/nodename): a pod naming `spec.nodeName` fits only that node. */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { ActionType, type ClusterEventWithHint, type EnqueueExtensions, type Handle, type NodeObjectFilterPlugin, type QueueingHint } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeInfo } from '../../framework/types.js';
import { asNode } from '../_hints.js';

export const Name = names.NodeName;
export const ErrReason = "node(s) didn't match the requested node name";
const statusMismatch = newStatus(Code.UnschedulableAndUnresolvable, ErrReason);

/** `Fits`: an empty nodeName fits everywhere. */
export function fits(pod: Pod, nodeName: string): boolean {
  const want = pod.spec?.nodeName ?? '';
  return want === '' || want === nodeName;
}

export class NodeName implements NodeObjectFilterPlugin, EnqueueExtensions {
  readonly name = Name;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    if (!fits(pod, nodeInfo.name)) return statusMismatch;
    return Status.success();
  }

  nodeObjectFilterKey(_state: CycleState, pod: Pod): string {
    return pod.spec?.nodeName ?? '';
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [{ event: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, queueingHintFn: isSchedulableAfterNodeAdd }];
  }
}

function isSchedulableAfterNodeAdd(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const n = asNode(newObj);
  if (n === undefined) return 'Queue';
  return fits(pod, n.metadata?.name ?? '') ? 'Queue' : 'QueueSkip';
}

export function create(_args: unknown, _h: Handle): NodeName {
  return new NodeName();
}
