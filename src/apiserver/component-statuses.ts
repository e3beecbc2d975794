/**
 * `v1 ComponentStatus` (`kubectl get componentstatuses`): not stored, computed on each read, as
 * kube-apiserver's componentstatus REST does (pkg/registry/core/componentstatus). Upstream probes each
 * control-plane server's health endpoint: the scheduler and controller-manager over HTTPS on 127.0.0.1 and
 * the storage (`etcd-0`). Here the scheduler and controller-manager run in this process; whoever starts them
 * registers a probe, and a component with no probe, or whose probe fails, reads as upstream's does when
 * nothing listens on its port. The storage answers when the server does.
 *
 * The resource is deprecated: every request of it carries the warning `v1 ComponentStatus is deprecated in
 * v1.19+`. Only get and list are served, without selectors (upstream ignores them too).
 */
import { ApiError, StatusReason } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';
import type { StoredObject } from './storage/watch-cache.js';

export const componentStatusDeprecation = 'v1 ComponentStatus is deprecated in v1.19+';

/** The components upstream checks, in the order listed here, with their secure health endpoints. */
const components = [
  { name: 'scheduler', url: 'https://127.0.0.1:10259/healthz' },
  { name: 'controller-manager', url: 'https://127.0.0.1:10257/healthz' },
] as const;

/** Whether `res` is `v1 componentstatuses`. */
export function isComponentStatuses(res: ResourceType): boolean {
  return res.group === '' && res.resource === 'componentstatuses';
}

export type ProbedComponent = (typeof components)[number]['name'];

/** The computed statuses, with the probes their components registered. */
export class ComponentStatuses {
  private readonly probes = new Map<ProbedComponent, () => boolean>();

  /** Says how to tell whether `component` is healthy (its host calls this when it starts the component). */
  setProbe(component: ProbedComponent, healthy: () => boolean): void {
    this.probes.set(component, healthy);
  }

  list(): StoredObject[] {
    const out = components.map((c) => {
      const healthy = this.probes.get(c.name)?.() === true;
      // A refused connection is a failed probe whose output is the client's error, not an error of the check.
      return status(c.name, healthy ? 'True' : 'False', healthy ? 'ok' : `Get "${c.url}": dial tcp ${new URL(c.url).host}: connect: connection refused`);
    });
    out.push(status('etcd-0', 'True', 'ok'));
    return out;
  }

  get(name: string): StoredObject {
    const found = this.list().find((s) => s.metadata?.name === name);
    // Upstream answers a plain error, which the server turns into a 500 with reason Unknown.
    if (found === undefined) throw new ApiError(500, StatusReason.Unknown, `Component not found: ${name}`);
    return found;
  }
}

function status(name: string, healthy: 'True' | 'False', message: string): StoredObject {
  return {
    kind: 'ComponentStatus',
    apiVersion: 'v1',
    metadata: { name, creationTimestamp: null },
    conditions: [{ type: 'Healthy', status: healthy, message }],
  } as unknown as StoredObject;
}
