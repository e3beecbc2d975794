/**
 * RuntimeClass (`plugin/pkg/admission/runtimeclass`): on pod CREATE, resolves `spec.runtimeClassName`,
 * sets `spec.overhead` from the class and merges its scheduling constraints (nodeSelector, tolerations)
 * into the pod (mutating); then checks that the pod's overhead matches the class (validating).
 */
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass as RuntimeClassObject } from 'kubernetes-types/node/v1.js';
import { apiErrors } from '../../api/errors.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../api/quantity.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import { mergeTolerations } from '../tolerations.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, ValidatingPlugin } from '../types.js';

export const name = names.RuntimeClass;

export const reasons = {
  notFound: (rc: string): string => `pod rejected: RuntimeClass "${rc}" not found`,
  overheadMismatch: "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
  overheadWithoutClass: 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
  nodeSelectorConflict: (key: string, rcValue: string, podValue: string): string =>
    `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${rcValue}; pod.spec.nodeSelector[${key}] = ${podValue}`,
} as const;

type ResourceList = Record<string, string | number>;

/** `apiequality.Semantic.DeepEqual` of two resource lists: same keys, equal quantities. */
export function resourceListsEqual(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => {
    const x = String(a[k]);
    const y = String(b[k]);
    if (!isQuantity(x) || !isQuantity(y)) return x === y;
    return compareQuantities(parseQuantity(x), parseQuantity(y)) === 0;
  });
}

function shouldIgnore(a: AdmissionAttributes): boolean {
  return a.subresource !== '' || !isResource(a, '', 'pods');
}

/** Sets `spec.overhead` from the class; refuses a pod that already carries a different overhead. */
export function setOverhead(a: AdmissionAttributes, pod: Pod, rc: RuntimeClassObject | undefined): void {
  if (rc?.overhead === undefined) return;
  const fixed = (rc.overhead.podFixed ?? {}) as ResourceList;
  const spec = (pod.spec ??= { containers: [] });
  if (spec.overhead !== undefined && !resourceListsEqual(fixed, spec.overhead)) {
    throw admissionForbidden(a, reasons.overheadMismatch);
  }
  spec.overhead = { ...fixed } as Record<string, string>;
}

/** Merges the class's nodeSelector (refusing conflicts) and tolerations into the pod. */
export function setScheduling(a: AdmissionAttributes, pod: Pod, rc: RuntimeClassObject | undefined): void {
  const sched = rc?.scheduling;
  if (sched === undefined) return;
  const spec = (pod.spec ??= { containers: [] });
  const rcSelector = sched.nodeSelector;
  let selector = spec.nodeSelector;
  if (selector === undefined) {
    selector = rcSelector === undefined ? undefined : { ...rcSelector };
  } else {
    for (const [key, rcValue] of Object.entries(rcSelector ?? {})) {
      const podValue = selector[key];
      if (podValue !== undefined && podValue !== rcValue) throw admissionForbidden(a, reasons.nodeSelectorConflict(key, rcValue, podValue));
      selector[key] = rcValue;
    }
  }
  const merged: Toleration[] = mergeTolerations(spec.tolerations, sched.tolerations);
  if (selector === undefined) delete spec.nodeSelector;
  else spec.nodeSelector = selector;
  if (merged.length === 0 && spec.tolerations === undefined) delete spec.tolerations;
  else spec.tolerations = merged;
}

/** The validating part: a pod's overhead must equal its class's, and may only be set with one. */
export function validateOverhead(a: AdmissionAttributes, pod: Pod, rc: RuntimeClassObject | undefined): void {
  const podOverhead = pod.spec?.overhead as ResourceList | undefined;
  if (rc?.overhead !== undefined) {
    if (!resourceListsEqual((rc.overhead.podFixed ?? {}), podOverhead)) throw admissionForbidden(a, reasons.overheadMismatch);
  } else if (podOverhead !== undefined) {
    throw admissionForbidden(a, reasons.overheadWithoutClass);
  }
}

export class RuntimeClass implements MutatingPlugin, ValidatingPlugin {
  readonly name = name;

  /** Upstream's handler is registered for CREATE only. */
  handles(op: AdmissionAttributes['operation']): boolean {
    return op === 'CREATE';
  }

  private async prepare(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<{ pod: Pod; rc: RuntimeClassObject | undefined }> {
    const pod = a.object as Pod | undefined;
    if (pod === undefined) throw apiErrors.badRequest('Resource was marked with kind Pod but was unable to be converted');
    const rcName = pod.spec?.runtimeClassName;
    if (rcName === undefined || rcName === null) return { pod, rc: undefined };
    const rc = await lookup.getRuntimeClass(rcName);
    if (rc === undefined) throw admissionForbidden(a, reasons.notFound(rcName));
    return { pod, rc };
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!this.handles(a.operation) || shouldIgnore(a)) return;
    const { pod, rc } = await this.prepare(a, lookup);
    setOverhead(a, pod, rc);
    setScheduling(a, pod, rc);
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!this.handles(a.operation) || shouldIgnore(a)) return;
    const { pod, rc } = await this.prepare(a, lookup);
    validateOverhead(a, pod, rc);
  }
}

export function create(): RuntimeClass {
  return new RuntimeClass();
}
