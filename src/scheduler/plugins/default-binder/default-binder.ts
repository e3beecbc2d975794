/**
 * DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder): binds through the `pods/binding`
 * subresource. The API call itself is the driver's (`ApiActions.bind`), so the algorithm can run offline.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { BindPlugin, Handle } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Status } from '../../framework/status.js';

export const Name = names.DefaultBinder;

export class DefaultBinder implements BindPlugin {
  readonly name = Name;
  constructor(private readonly handle: Handle) {}

  async bind(_state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    const api = this.handle.apiActions();
    if (api === undefined) return Status.success();
    try {
      await api.bind(pod, nodeName);
      return Status.success();
    } catch (e) {
      return Status.asStatus(e instanceof Error ? e : new Error(String(e)));
    }
  }
}

export function create(_args: unknown, h: Handle): DefaultBinder {
  return new DefaultBinder(h);
}
