/**
 * Priority (`plugin/pkg/admission/priority`): on pod CREATE resolves `spec.priorityClassName` (or the
 * global default class) to `spec.priority` and `spec.preemptionPolicy`; on UPDATE keeps the stored values.
 * Validating part: at most one PriorityClass may be `globalDefault`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, ValidatingPlugin } from '../types.js';

export const name = names.Priority;

/** `scheduling.DefaultPriorityWhenNoDefaultClassExists`. */
export const defaultPriorityWhenNoDefaultClassExists = 0;

/** The two system classes kube-apiserver creates at start (`scheduling.SystemPriorityClasses()`). */
export const systemPriorityClasses: readonly PriorityClass[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2000001000,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2000000000,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/** The global default class with the lowest value, if any (`getDefaultPriorityClass`). */
export function defaultPriorityClass(classes: readonly PriorityClass[]): PriorityClass | undefined {
  let best: PriorityClass | undefined;
  for (const pc of classes) if (pc.globalDefault === true && (best === undefined || best.value > pc.value)) best = pc;
  return best;
}

export class Priority implements MutatingPlugin, ValidatingPlugin {
  readonly name = name;

  private async getClass(lookup: AdmissionLookup, pcName: string): Promise<PriorityClass | undefined> {
    return (await lookup.getPriorityClass(pcName)) ?? systemPriorityClasses.find((pc) => pc.metadata?.name === pcName);
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.subresource !== '' || !isResource(a, '', 'pods')) return;
    const pod = a.object as Pod | undefined;
    if (pod?.spec === undefined) return;
    const spec = pod.spec;
    if (a.operation === 'UPDATE') {
      const old = (a.oldObject as Pod | undefined)?.spec;
      if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (a.operation !== 'CREATE') return;
    let priority: number;
    let policy: string | undefined;
    if ((spec.priorityClassName ?? '') === '') {
      const dpc = defaultPriorityClass(await lookup.listPriorityClasses());
      if (dpc !== undefined) {
        spec.priorityClassName = dpc.metadata?.name ?? '';
        priority = dpc.value;
        policy = dpc.preemptionPolicy;
      } else {
        priority = defaultPriorityWhenNoDefaultClassExists;
        policy = 'PreemptLowerPriority';
      }
    } else {
      const pc = await this.getClass(lookup, spec.priorityClassName ?? '');
      if (pc === undefined) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
      priority = pc.value;
      policy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== priority) {
      throw admissionForbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (policy !== undefined) {
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== policy) {
        throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = policy;
    }
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.subresource !== '' || !isResource(a, 'scheduling.k8s.io', 'priorityclasses')) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const pc = a.object as PriorityClass | undefined;
    if (pc?.globalDefault !== true) return;
    const dpc = defaultPriorityClass(await lookup.listPriorityClasses());
    if (dpc === undefined) return;
    if (a.operation === 'CREATE' || dpc.metadata?.name !== pc.metadata?.name) {
      throw admissionForbidden(a, `PriorityClass ${dpc.metadata?.name ?? ''} is marked as default. Only one default can exist`);
    }
  }
}

export function create(): Priority {
  return new Priority();
}
