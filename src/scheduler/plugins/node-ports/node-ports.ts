/**
 * NodePorts (pkg/scheduler/framework/plugins/nodeports): a host port conflicts on the same
 * protocol/port when either side binds 0.0.0.0 or both bind the same IP (semantics.md section 4).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import { ActionType, type ClusterEventWithHint, type EnqueueExtensions, type FilterPlugin, type Handle, type PreFilterPlugin, type PreFilterResult, type QueueingHint } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import { podHostPorts, type HostPort, type HostPortInfo, type NodeInfo } from '../../framework/types.js';
import { asPod } from '../_hints.js';

export const Name = names.NodePorts;
export const ErrReason = "node(s) didn't have free ports for the requested pod ports";

const preFilterStateKey = 'PreFilter' + Name;
const statusConflict = newStatus(Code.Unschedulable, ErrReason);

class PreFilterState implements StateData {
  constructor(readonly ports: HostPort[]) {}
  clone(): StateData {
    return this;
  }
}

/** `fitsPorts`: no wanted port conflicts with one in use. */
export function fitsPorts(want: readonly HostPort[], used: HostPortInfo): boolean {
  for (const p of want) if (used.checkConflict(p.ip, p.protocol, p.port)) return false;
  return true;
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = Name;

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const ports = podHostPorts(pod);
    if (ports.length === 0) return { status: newStatus(Code.Skip) };
    state.write(preFilterStateKey, new PreFilterState(ports));
    return { status: Status.success() };
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    const want = s?.ports ?? podHostPorts(pod);
    if (!fitsPorts(want, nodeInfo.usedPorts)) return statusConflict;
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'AssignedPod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, queueingHintFn: isSchedulableAfterPodDeleted },
      // Node add and update: always retried (upstream registers no hint here).
      { event: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' } },
    ];
  }
}

function isSchedulableAfterPodDeleted(pod: Pod, oldObj: unknown, _newObj: unknown): QueueingHint {
  const deleted = asPod(oldObj);
  if (deleted === undefined) return 'Queue';
  const freed = podHostPorts(deleted);
  for (const w of podHostPorts(pod)) {
    for (const f of freed) {
      if (w.protocol === f.protocol && w.port === f.port && (w.ip === f.ip || w.ip === '0.0.0.0' || f.ip === '0.0.0.0')) return 'Queue';
    }
  }
  return 'QueueSkip';
}

export function create(_args: unknown, _h: Handle): NodePorts {
  return new NodePorts();
}
