/** PrioritySort (pkg/scheduler/framework/plugins/queuesort): higher priority first, then earlier queue time. */
import { podPriority } from '../../framework/corev1.js';
import type { Handle, QueueSortPlugin, QueuedPodInfoLike } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';

export const Name = names.PrioritySort;

export class PrioritySort implements QueueSortPlugin {
  readonly name = Name;
  less(a: QueuedPodInfoLike, b: QueuedPodInfoLike): boolean {
    const p1 = podPriority(a.podInfo.pod);
    const p2 = podPriority(b.podInfo.pod);
    return p1 > p2 || (p1 === p2 && a.timestamp < b.timestamp);
  }
}

export function create(_args: unknown, _h: Handle): PrioritySort {
  return new PrioritySort();
}
