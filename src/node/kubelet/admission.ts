/**
 * Kubelet pod admission (`pkg/kubelet/lifecycle/predicate.go`, `predicateAdmitHandler.Admit`), in upstream
 * order: the OS label check, the OS field check, then `scheduler.AdmissionCheck` (resources, node affinity,
 * node name, host ports) and untolerated NoExecute taints. Only the first failure is reported.
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { requirementMatches, type Operator } from '../../api/labels.js';
import { parseQuantity, quantityMilliValue, quantityValue } from '../../api/quantity.js';
// As upstream's kubelet admission counts with the scheduler's resource helpers (lifecycle/predicate.go).
import { milliOf, podRequestsNanos, valueOf } from '../../scheduler/framework/resources.js';

export type AdmitResult = { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string };

export const admissionReasons = {
  PodOSSelectorNodeLabelDoesNotMatch: 'PodOSSelectorNodeLabelDoesNotMatch',
  PodOSNotSupported: 'PodOSNotSupported',
  OutOfCPU: 'OutOfcpu',
  OutOfMemory: 'OutOfmemory',
  OutOfEphemeralStorage: 'OutOfephemeral-storage',
  OutOfPods: 'OutOfpods',
  NodeAffinity: 'NodeAffinity',
  NodeName: 'NodeName',
  NodePorts: 'NodePorts',
  TaintToleration: 'TaintToleration',
} as const;

const osLabel = 'kubernetes.io/os';

/**
 * The requests of each pod object already counted: admitting a pod adds up those of every pod admitted to
 * the node before it, so each is parsed once per version (a changed pod arrives as a new object).
 */
const requestsOf = new WeakMap<Pod, ReadonlyMap<string, number>>();

/** Requests of a pod as the scheduler counts them: max(sum of containers, each init container) + overhead. */
export function podRequests(pod: Pod): ReadonlyMap<string, number> {
  let r = requestsOf.get(pod);
  if (r === undefined) requestsOf.set(pod, (r = computePodRequests(pod)));
  return r;
}

/** The kubelet's view of the totals (`framework.NewResource`): millicores of cpu, units of the rest. */
function computePodRequests(pod: Pod): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, nanos] of podRequestsNanos(pod)) out.set(name, name === 'cpu' ? milliOf(nanos) : valueOf(nanos));
  return out;
}

/** The allocatable amounts of each node object already parsed: every admission to the node reads them. */
const allocatableOf = new WeakMap<Node, Map<string, number>>();

function allocatableAmount(node: Node, name: string): number {
  let amounts = allocatableOf.get(node);
  if (amounts === undefined) allocatableOf.set(node, (amounts = new Map<string, number>()));
  let v = amounts.get(name);
  if (v === undefined) {
    const q = node.status?.allocatable?.[name];
    v = q === undefined ? 0 : name === 'cpu' ? quantityMilliValue(parseQuantity(q)) : quantityValue(parseQuantity(q));
    amounts.set(name, v);
  }
  return v;
}

/** What the pods already admitted request of one resource. */
function usedOf(otherPods: readonly Pod[], name: string): number {
  let u = 0;
  for (const p of otherPods) u += podRequests(p).get(name) ?? 0;
  return u;
}

function nodeSelectorRequirementMatches(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const op = r.operator as Operator;
  return requirementMatches({ key: r.key, operator: op, values: r.values ?? [] }, labels);
}

function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  if (!exprs.every((r) => nodeSelectorRequirementMatches(r, labels))) return false;
  return fields.every((r) => r.key === 'metadata.name' && nodeSelectorRequirementMatches(r, { 'metadata.name': node.metadata?.name ?? '' }));
}

/** nodeSelector and required node affinity (`nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`). */
export function podMatchesNodeAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined) return true;
  return required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

/** `v1helper.TolerationsTolerateTaint` for one taint. */
export function toleratesTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') return false;
    if (t.operator === 'Exists') return true;
    return (t.value ?? '') === (taint.value ?? '');
  });
}

function hostPorts(pod: Pod): Array<{ ip: string; protocol: string; port: number }> {
  const out: Array<{ ip: string; protocol: string; port: number }> = [];
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const p of c.ports ?? []) {
      if (p.hostPort !== undefined && p.hostPort > 0) out.push({ ip: p.hostIP ?? '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort });
    }
  }
  return out;
}

function portsConflict(a: { ip: string; protocol: string; port: number }, b: { ip: string; protocol: string; port: number }): boolean {
  if (a.port !== b.port || a.protocol !== b.protocol) return false;
  return a.ip === b.ip || a.ip === '0.0.0.0' || b.ip === '0.0.0.0';
}

function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.['kubernetes.io/config.source'];
  return source !== undefined && source !== 'api';
}

/**
 * Admits `pod` to `node` given the pods already admitted there (`otherPods`, not terminal).
 * `nodeOS` is the kubelet's own OS (Go's `runtime.GOOS`), not read from the Node.
 */
export function admitPod(pod: Pod, node: Node, otherPods: readonly Pod[], nodeOS: string): AdmitResult {
  // The node label is reconciled to GOOS before comparing, so only the kubelet's own OS counts.
  const podOS = pod.metadata?.labels?.[osLabel];
  if (podOS !== undefined && podOS !== nodeOS) {
    return {
      admit: false,
      reason: admissionReasons.PodOSSelectorNodeLabelDoesNotMatch,
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  if (pod.spec?.os !== undefined && pod.spec.os.name !== nodeOS) {
    return { admit: false, reason: admissionReasons.PodOSNotSupported, message: "Failed to admit pod as the OS field doesn't match node OS" };
  }

  // scheduler.AdmissionCheck: resources first (pods, cpu, memory, ephemeral-storage, then scalar resources).
  const requests = podRequests(pod);
  const allowedPods = allocatableAmount(node, 'pods');
  if (otherPods.length + 1 > allowedPods) return insufficient('pods', 1, otherPods.length, allowedPods);
  const order = ['cpu', 'memory', 'ephemeral-storage', ...[...requests.keys()].filter((k) => !['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(k)).sort()];
  for (const name of order) {
    const req = requests.get(name) ?? 0;
    if (req === 0) continue;
    const cap = allocatableAmount(node, name);
    const u = usedOf(otherPods, name);
    if (req > cap - u) return insufficient(name, req, u, cap);
  }
  if (!podMatchesNodeAffinity(pod, node)) {
    return { admit: false, reason: admissionReasons.NodeAffinity, message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" };
  }
  const wantName = pod.spec?.nodeName;
  if (wantName !== undefined && wantName !== '' && wantName !== node.metadata?.name) {
    return { admit: false, reason: admissionReasons.NodeName, message: "Predicate NodeName failed: node(s) didn't match the requested node name" };
  }
  const mine = hostPorts(pod);
  if (mine.length > 0) {
    const taken = otherPods.flatMap(hostPorts);
    if (mine.some((a) => taken.some((b) => portsConflict(a, b)))) {
      return { admit: false, reason: admissionReasons.NodePorts, message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" };
    }
  }
  if (!isStaticPod(pod)) {
    const tolerations = pod.spec?.tolerations ?? [];
    const untolerated = (node.spec?.taints ?? []).some((t) => t.effect === 'NoExecute' && !toleratesTaint(tolerations, t));
    if (untolerated) {
      return { admit: false, reason: admissionReasons.TaintToleration, message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate" };
    }
  }
  return { admit: true };
}

function insufficient(resource: string, requested: number, used: number, capacity: number): AdmitResult {
  const reasons: Record<string, string> = {
    cpu: admissionReasons.OutOfCPU,
    memory: admissionReasons.OutOfMemory,
    'ephemeral-storage': admissionReasons.OutOfEphemeralStorage,
    pods: admissionReasons.OutOfPods,
  };
  return {
    admit: false,
    reason: reasons[resource] ?? `OutOf${resource}`,
    message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  };
}

/** The pod status message of a rejected pod (`kl.rejectPod`). */
export function rejectionMessage(message: string): string {
  return `Pod was rejected: ${message}`;
}
