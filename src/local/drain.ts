/**
 * Draining a node through the API, as `kubectl drain --ignore-daemonsets --delete-emptydir-data --force`
 * does (k8s.io/kubectl/pkg/drain): cordon (`spec.unschedulable: true`), then evict every pod on the node
 * except DaemonSet and mirror pods through `pods/eviction`, retrying evictions a PodDisruptionBudget refuses
 * (429) every 5 s, and wait until each evicted pod is gone (or replaced by a pod with another UID).
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { isApiError, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client } from '../client/client.js';
import { realClock, type Clock } from '../client/index.js';

export interface DrainOptions {
  clock?: Clock;
  /** Pause between eviction retries and pod-gone checks (kubectl: 5 s between retries; 1 s polls here). */
  retryMs?: number;
  pollMs?: number;
  /** Give up after this long (default: no limit, as kubectl drain's default `--timeout=0s`). */
  timeoutMs?: number;
  /** Stop waiting when this says so (the process is shutting down). */
  cancelled?: () => boolean;
  log?: (message: string) => void;
}

const mirrorAnnotation = 'kubernetes.io/config.mirror';

/** Whether `kubectl drain --ignore-daemonsets` leaves the pod alone. */
export function drainSkips(pod: Pod): boolean {
  if (pod.metadata?.annotations?.[mirrorAnnotation] !== undefined) return true;
  return (pod.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'DaemonSet');
}

const sleep = (clock: Clock, ms: number): Promise<void> => new Promise((r) => clock.setTimeout(r, ms));

/** Cordons the node. */
export async function cordonNode(client: Client, name: string): Promise<void> {
  await client.patch<Node>(resources.nodes, name, 'merge', { spec: { unschedulable: true } });
}

/** Cordons `name` and evicts its pods; resolves once they are gone. Throws on timeout. */
export async function drainNode(client: Client, name: string, opts: DrainOptions = {}): Promise<void> {
  const clock = opts.clock ?? realClock;
  const retryMs = opts.retryMs ?? 5_000;
  const pollMs = opts.pollMs ?? 1_000;
  const deadline = opts.timeoutMs !== undefined ? clock.now() + opts.timeoutMs : Infinity;
  const cancelled = opts.cancelled ?? (() => false);
  try {
    await cordonNode(client, name);
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
  const pods = (await client.list<Pod>(resources.pods, { fieldSelector: `spec.nodeName=${name}` })).items.filter((p) => !drainSkips(p));
  const pending = new Map(pods.map((p) => [`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, p]));
  const evicted = new Set<string>();
  while (pending.size > 0) {
    if (cancelled()) return;
    if (clock.now() > deadline) throw new Error(`drain did not complete within ${opts.timeoutMs ?? 0}ms: ${pending.size} pod(s) left on ${name}`);
    for (const [key, pod] of [...pending]) {
      const namespace = pod.metadata?.namespace ?? 'default';
      const podName = pod.metadata?.name ?? '';
      if (!evicted.has(key)) {
        try {
          await client.createSubresource(resources.pods, podName, 'eviction', {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: podName, namespace },
          }, { namespace });
          evicted.add(key);
          opts.log?.(`evicting pod ${key}`);
        } catch (e) {
          if (isNotFound(e)) {
            pending.delete(key);
            continue;
          }
          // 429: a PodDisruptionBudget does not allow it now; retried.
          if (!(isApiError(e) && e.code === 429)) throw e;
          opts.log?.(`error when evicting pod ${key} (will retry after 5s): ${e.message}`);
          continue;
        }
      }
      try {
        const current = await client.get<Pod>(resources.pods, podName, { namespace });
        if (current.metadata?.uid !== pod.metadata?.uid) pending.delete(key);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        pending.delete(key);
        opts.log?.(`pod ${key} evicted`);
      }
    }
    if (pending.size === 0) break;
    await sleep(clock, [...pending.keys()].every((k) => evicted.has(k)) ? pollMs : retryMs);
  }
}
