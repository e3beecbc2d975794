/** SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates): a pod with `spec.schedulingGates` waits outside the active queue. */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ActionType, type ClusterEventWithHint, type EnqueueExtensions, type Handle, type PreEnqueuePlugin } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';

export const Name = names.SchedulingGates;

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = Name;

  preEnqueue(pod: Pod): Status {
    const gates = pod.spec?.schedulingGates ?? [];
    if (gates.length === 0) return Status.success();
    return newStatus(Code.UnschedulableAndUnresolvable, `waiting for scheduling gates: [${gates.map((g) => g.name).join(' ')}]`);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [{ event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodSchedulingGatesEliminated, label: 'PodSchedulingGateEliminatedChange' } }];
  }
}

export function create(_args: unknown, _h: Handle): SchedulingGates {
  return new SchedulingGates();
}
