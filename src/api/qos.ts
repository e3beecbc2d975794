/**
 * A pod's QoS class (`pkg/apis/core/helper/qos`, and its v1 twin the kubelet uses): one rule for the pod
 * strategy that stores `status.qosClass`, the kubelet that reports it and the quota scopes that match it.
 */
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { parseQuantity } from './quantity.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** Only these compute resources decide the class (`isSupportedQoSComputeResource`). */
const qosComputeResources = ['cpu', 'memory'] as const;

/** The positive amounts of the QoS resources in `list`, added into `into`; answers how many were positive. */
function addPositive(into: Map<string, bigint>, list: Readonly<Record<string, string>> | undefined): number {
  let found = 0;
  for (const name of qosComputeResources) {
    const v = list?.[name];
    if (v === undefined) continue;
    const nanos = parseQuantity(String(v)).nanos;
    if (nanos <= 0n) continue;
    found++;
    into.set(name, (into.get(name) ?? 0n) + nanos);
  }
  return found;
}

/**
 * `ComputePodQOS`: BestEffort when no container (init containers included) requests or limits a positive
 * amount of cpu or memory; Guaranteed when every container limits both and the pod's summed requests equal
 * its summed limits; Burstable otherwise.
 */
export function computePodQOS(spec: Pick<PodSpec, 'containers' | 'initContainers'>): QOSClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    addPositive(requests, c.resources?.requests);
    if (addPositive(limits, c.resources?.limits) !== qosComputeResources.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** `GetPodQOS`: the class the API server stored in `status.qosClass`, computed when there is none. */
export function podQOSClass(pod: Pod): QOSClass {
  const stored = pod.status?.qosClass;
  if (stored === 'Guaranteed' || stored === 'Burstable' || stored === 'BestEffort') return stored;
  return computePodQOS(pod.spec ?? { containers: [] });
}
