/**
 * PodSecurity (`plugin/pkg/admission/security/podsecurity` over `k8s.io/pod-security-admission/admission`):
 * enforces, audits and warns about the Pod Security Standards a namespace selects with its
 * `pod-security.kubernetes.io/{enforce,audit,warn}[-version]` labels. Validating phase only.
 *
 * - Pods (CREATE, and UPDATEs that add containers or change an image or a container's seccomp annotation;
 *   ignored subresources such as status and binding pass): an enforce violation is 403 `violates PodSecurity
 *   "<level>:<version>": ...`; a warn violation becomes a `Warning` header `would violate PodSecurity ...`.
 * - Workload resources with a pod template: warn and audit only, never enforce.
 * - Namespaces: invalid labels are refused (422) on CREATE and on an UPDATE that changes them; raising the
 *   enforce level checks the existing pods and warns about those that would violate it.
 *
 * kube-apiserver's default configuration is privileged:latest for all three modes with no exemptions, so
 * unlabelled namespaces (kube-system included) are not restricted. Audit results go to `auditAnnotations`
 * (kubemix has no audit log; kube-apiserver adds them to the audit event).
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Namespace, Pod, PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../../api/errors.js';
import { aggregateMessage, type FieldError } from '../../api/field-errors.js';
import { admissionForbidden } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, ValidatingPlugin } from '../types.js';
import { AuditLevelLabel, AuditVersionLabel, compareLevels, EnforceLevelLabel, EnforceVersionLabel, latestVersion, Level, levelVersionString, policyToEvaluate, sameLevelVersion, versionString, WarnLevelLabel, WarnVersionLabel, type LevelVersion, type Policy } from './_api.js';
import { defaultChecks } from './_checks.js';
import { aggregateCheckResults, forbiddenDetail, forbiddenReason, newEvaluator, type AggregateCheckResult, type Evaluator } from './_policy.js';

export const name = names.PodSecurity;

export const messages = {
  enforce: (lv: LevelVersion, detail: string): string => `violates PodSecurity "${levelVersionString(lv)}": ${detail}`,
  wouldViolate: (lv: LevelVersion, detail: string): string => `would violate PodSecurity "${levelVersionString(lv)}": ${detail}`,
  existingPods: (namespace: string, lv: LevelVersion): string =>
    `existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(lv)}"`,
  partialCheck: (checked: number, total: number): string => `new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`,
  listFailed: 'failed to list pods while checking new PodSecurity enforce level',
  namespaceLookup: (namespace: string): string => `failed to lookup namespace "${namespace}"`,
  exemptNamespace: (namespace: string, policy: string): string => `namespace "${namespace}" is exempt from Pod Security, and the policy (${policy}) will be ignored`,
} as const;

/** `PodSecurityConfiguration.exemptions`. */
export interface Exemptions {
  usernames?: readonly string[];
  namespaces?: readonly string[];
  runtimeClasses?: readonly string[];
}

export interface PodSecurityOptions {
  /** `PodSecurityConfiguration.defaults`; kube-apiserver's default is privileged:latest for every mode. */
  defaults?: Policy;
  exemptions?: Exemptions;
  /** Upstream's `defaultNamespaceMaxPodsToCheck` (3000). */
  namespaceMaxPodsToCheck?: number;
  /** Receives the audit annotations of each evaluation (`pod-security.kubernetes.io/audit-violations`, `error`, ...). */
  auditAnnotations?: (a: AdmissionAttributes, annotations: Record<string, string>) => void;
}

/** The subresources of pods that cannot change the pod spec (`ignoredPodSubresources`). */
const ignoredPodSubresources = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** `api.EnforcedPolicyAnnotationKey`, `api.AuditViolationsAnnotationKey`. */
export const enforcedPolicyAnnotationKey = 'enforce-policy';
export const auditViolationsAnnotationKey = 'audit-violations';

type TemplateExtractor = (obj: Record<string, unknown>) => PodTemplateSpec | undefined | null;
const spec = (obj: Record<string, unknown>): Record<string, unknown> => (obj['spec'] ?? {}) as Record<string, unknown>;
const templateOf = (obj: Record<string, unknown>): PodTemplateSpec => (spec(obj)['template'] ?? {});

/** `defaultPodSpecResources` and `DefaultPodSpecExtractor.ExtractPodSpec`, keyed `<group>/<resource>`. */
const podSpecResources = new Map<string, TemplateExtractor>([
  ['/replicationcontrollers', (o) => spec(o)['template'] as PodTemplateSpec | undefined],
  ['/podtemplates', (o) => (o['template'] ?? {})],
  ['apps/replicasets', templateOf],
  ['apps/deployments', templateOf],
  ['apps/statefulsets', templateOf],
  ['apps/daemonsets', templateOf],
  ['batch/jobs', templateOf],
  ['batch/cronjobs', (o) => ((spec(o)['jobTemplate'] as { spec?: { template?: PodTemplateSpec } } | undefined)?.spec?.template ?? {})],
]);

const privilegedLatest = (): LevelVersion => ({ level: Level.Privileged, version: latestVersion });

export class PodSecurity implements ValidatingPlugin {
  readonly name = name;
  private readonly defaults: Policy;
  private readonly exemptions: Required<Exemptions>;
  private readonly maxPodsToCheck: number;
  private readonly evaluator: Evaluator;

  constructor(private readonly opts: PodSecurityOptions = {}) {
    this.defaults = opts.defaults ?? { enforce: privilegedLatest(), audit: privilegedLatest(), warn: privilegedLatest() };
    this.exemptions = { usernames: opts.exemptions?.usernames ?? [], namespaces: opts.exemptions?.namespaces ?? [], runtimeClasses: opts.exemptions?.runtimeClasses ?? [] };
    this.maxPodsToCheck = opts.namespaceMaxPodsToCheck ?? 3000;
    this.evaluator = newEvaluator(defaultChecks());
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (a.object === undefined) return;
    if (a.resource.group === '' && a.resource.resource === 'namespaces') return this.validateNamespace(a, lookup);
    if (a.resource.group === '' && a.resource.resource === 'pods') return this.validatePod(a, lookup);
    const extract = podSpecResources.get(`${a.resource.group}/${a.resource.resource}`);
    if (extract !== undefined) return this.validatePodController(a, lookup, extract);
  }

  /** `ValidateNamespace`. */
  private async validateNamespace(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.subresource !== '') return;
    const ns = a.object as Namespace;
    const next = policyToEvaluate(ns.metadata?.labels, this.defaults);
    const nsName = ns.metadata?.name ?? a.name;
    const exempt = this.exemptNamespace(a.namespace !== '' ? a.namespace : nsName);
    if (a.operation === 'CREATE') {
      if (next.errors.length > 0) throw invalidNamespace(a, next.errors);
      if (exempt) this.warnExemptNamespace(a, nsName, next.policy, ns.metadata?.labels ?? {});
      return;
    }
    const old = policyToEvaluate((a.oldObject as Namespace | undefined)?.metadata?.labels, this.defaults);
    if (next.errors.length > 0 && (old.errors.length === 0 || aggregateMessage(next.errors) !== aggregateMessage(old.errors))) {
      throw invalidNamespace(a, next.errors);
    }
    const newEnforce = next.policy.enforce;
    const oldEnforce = old.policy.enforce;
    // Pods are not dry-run when the enforce policy is unchanged, privileged, or relaxed at the same version.
    if (sameLevelVersion(newEnforce, oldEnforce)) return;
    if (newEnforce.level === Level.Privileged) return;
    if (versionString(newEnforce.version) === versionString(oldEnforce.version) && compareLevels(newEnforce.level, oldEnforce.level) < 1) return;
    if (exempt) {
      this.warnExemptNamespace(a, nsName, next.policy, ns.metadata?.labels ?? {});
      return;
    }
    a.warnings?.push(...(await this.evaluatePodsInNamespace(lookup, nsName, newEnforce)));
  }

  /** `ValidatePod`. */
  private async validatePod(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (ignoredPodSubresources.has(a.subresource)) return;
    if (this.exemptNamespace(a.namespace) || this.exemptUser(a.userInfo.username)) return;
    const ns = await lookup.getNamespace(a.namespace);
    if (ns === undefined) throw apiErrors.internal(messages.namespaceLookup(a.namespace));
    const { policy, errors } = policyToEvaluate(ns.metadata?.labels, this.defaults);
    if (errors.length === 0 && fullyPrivileged(policy)) return;
    const pod = a.object as Pod;
    if (a.operation === 'UPDATE' && a.oldObject !== undefined && !isSignificantPodUpdate(pod, a.oldObject as Pod)) return;
    this.evaluatePod(a, policy, errors, pod.metadata ?? {}, pod.spec ?? { containers: [] }, true);
  }

  /** `ValidatePodController`: workload resources get warnings and audit annotations, never a refusal. */
  private async validatePodController(a: AdmissionAttributes, lookup: AdmissionLookup, extract: TemplateExtractor): Promise<void> {
    if (a.subresource !== '') return;
    if (this.exemptNamespace(a.namespace) || this.exemptUser(a.userInfo.username)) return;
    const ns = await lookup.getNamespace(a.namespace);
    if (ns === undefined) throw apiErrors.internal(messages.namespaceLookup(a.namespace));
    const { policy, errors } = policyToEvaluate(ns.metadata?.labels, this.defaults);
    if (errors.length === 0 && policy.warn.level === Level.Privileged && policy.audit.level === Level.Privileged) return;
    const template = extract(a.object as Record<string, unknown>);
    if (template === undefined || template === null) return;
    this.evaluatePod(a, policy, errors, template.metadata ?? {}, template.spec ?? { containers: [] }, false);
  }

  /** `EvaluatePod`: enforce (pods only) throws; audit goes to the annotations; warn to the response's warnings. */
  private evaluatePod(a: AdmissionAttributes, policy: Policy, policyErrors: FieldError[], meta: ObjectMeta, podSpec: PodSpec, enforce: boolean): void {
    if (this.exemptRuntimeClass(podSpec.runtimeClassName)) return;
    const annotations: Record<string, string> = {};
    if (policyErrors.length > 0) annotations['error'] = `Failed to parse policy: ${aggregateMessage(policyErrors)}`;
    const cached = new Map<string, AggregateCheckResult>();
    const evaluate = (lv: LevelVersion): AggregateCheckResult => {
      const key = levelVersionString(lv);
      let r = cached.get(key);
      if (r === undefined) {
        r = aggregateCheckResults(this.evaluator.evaluatePod(lv, meta, podSpec));
        cached.set(key, r);
      }
      return r;
    };
    let refusal: string | undefined;
    if (enforce) {
      annotations[enforcedPolicyAnnotationKey] = levelVersionString(policy.enforce);
      const r = evaluate(policy.enforce);
      if (!r.allowed) refusal = messages.enforce(policy.enforce, forbiddenDetail(r));
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) annotations[auditViolationsAnnotationKey] = messages.wouldViolate(policy.audit, forbiddenDetail(audit));
    this.opts.auditAnnotations?.(a, annotations);
    if (refusal !== undefined) throw admissionForbidden(a, refusal);
    // No warnings on a request that is refused anyway.
    const warn = evaluate(policy.warn);
    if (!warn.allowed) a.warnings?.push(messages.wouldViolate(policy.warn, forbiddenDetail(warn)));
  }

  /**
   * `EvaluatePodsInNamespace`: one warning per distinct set of violated checks, prefixed by the lexically
   * first pod name and the count of the others, after a summary line.
   */
  private async evaluatePodsInNamespace(lookup: AdmissionLookup, namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: Pod[];
    try {
      pods = await lookup.listPods(namespace);
    } catch {
      return [messages.listFailed];
    }
    const warnings: string[] = [];
    const prioritized = this.prioritizePods(pods);
    const total = prioritized.length;
    const checked = prioritized.slice(0, this.maxPodsToCheck);
    const order: string[] = [];
    const counts = new Map<string, { podName: string; podCount: number }>();
    for (const pod of checked) {
      const r = aggregateCheckResults(this.evaluator.evaluatePod(enforce, pod.metadata ?? {}, pod.spec ?? { containers: [] }));
      if (r.allowed) continue;
      const warning = forbiddenReason(r);
      const podName = pod.metadata?.name ?? '';
      const c = counts.get(warning);
      if (c === undefined) {
        counts.set(warning, { podName, podCount: 1 });
        order.push(warning);
      } else {
        if (podName < c.podName) c.podName = podName;
        c.podCount++;
      }
    }
    if (checked.length < total) warnings.push(messages.partialCheck(checked.length, total));
    if (order.length > 0) warnings.push(messages.existingPods(namespace, enforce));
    const decorated = order.map((w) => {
      const c = counts.get(w);
      if (c === undefined) return w;
      if (c.podCount === 1) return `${c.podName}: ${w}`;
      if (c.podCount === 2) return `${c.podName} (and 1 other pod): ${w}`;
      return `${c.podName} (and ${c.podCount - 1} other pods): ${w}`;
    });
    decorated.sort();
    return [...warnings, ...decorated];
  }

  /**
   * `prioritizePods`: pods of exempt runtime classes are dropped; the first pod of each controller comes first,
   * the other replicas after all of those, so the pod limit covers as many workloads as it can.
   */
  private prioritizePods(pods: readonly Pod[]): Pod[] {
    const first: Pod[] = [];
    const duplicates: Pod[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      if (this.exemptRuntimeClass(pod.spec?.runtimeClassName)) continue;
      const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.controller === true);
      if (owner === undefined) {
        first.push(pod);
      } else if (seen.has(owner.uid)) {
        duplicates.push(pod);
      } else {
        seen.add(owner.uid);
        first.push(pod);
      }
    }
    return [...first, ...duplicates];
  }

  /**
   * `exemptNamespaceWarning`: an exempt namespace that sets a non-privileged policy differing from the defaults
   * is told that the policy is ignored, naming the modes its labels set.
   */
  private warnExemptNamespace(a: AdmissionAttributes, namespace: string, policy: Policy, labels: Record<string, string>): void {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, this.defaults)) return;
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(labels, k);
    const parts: string[] = [];
    const mode = (m: keyof Policy, levelLabel: string, versionLabel: string): void => {
      if (policy[m].level !== Level.Privileged && (has(levelLabel) || has(versionLabel))) parts.push(`${m}=${levelVersionString(policy[m])}`);
    };
    mode('enforce', EnforceLevelLabel, EnforceVersionLabel);
    mode('audit', AuditLevelLabel, AuditVersionLabel);
    mode('warn', WarnLevelLabel, WarnVersionLabel);
    a.warnings?.push(messages.exemptNamespace(namespace, parts.join(', ')));
  }

  private exemptNamespace(namespace: string): boolean {
    return namespace !== '' && this.exemptions.namespaces.includes(namespace);
  }

  private exemptUser(username: string): boolean {
    return username !== '' && this.exemptions.usernames.includes(username);
  }

  private exemptRuntimeClass(runtimeClass: string | undefined): boolean {
    return runtimeClass !== undefined && runtimeClass !== '' && this.exemptions.runtimeClasses.includes(runtimeClass);
  }
}

function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === Level.Privileged && p.audit.level === Level.Privileged && p.warn.level === Level.Privileged;
}

/** `Policy.Equivalent`: same levels, and same versions where the level is not privileged. */
function equivalentPolicies(a: Policy, b: Policy): boolean {
  const same = (x: LevelVersion, y: LevelVersion): boolean => x.level === y.level && (x.level === Level.Privileged || versionString(x.version) === versionString(y.version));
  return same(a.enforce, b.enforce) && same(a.audit, b.audit) && same(a.warn, b.warn);
}

/** `invalidResponse`: `NewInvalid(Namespace, name, errs)`, as the plugin returns it. */
function invalidNamespace(a: AdmissionAttributes, errors: FieldError[]): Error {
  return apiErrors.invalid({ group: '', kind: 'Namespace' }, a.name !== '' ? a.name : (a.object?.metadata?.name ?? ''), errors);
}

const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

/**
 * `isSignificantPodUpdate`: only added or removed containers, image changes and changes of a container's seccomp
 * annotation (the mutable parts of a pod that matter to the checks) trigger an evaluation of an update.
 */
export function isSignificantPodUpdate(pod: Pod, oldPod: Pod): boolean {
  const ann = pod.metadata?.annotations ?? {};
  const oldAnn = oldPod.metadata?.annotations ?? {};
  const cs = pod.spec?.containers ?? [];
  const oldCs = oldPod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  const oldInits = oldPod.spec?.initContainers ?? [];
  if (cs.length !== oldCs.length || inits.length !== oldInits.length) return true;
  const significant = (c: { name: string; image?: string }, old: { name: string; image?: string }): boolean => {
    if ((c.image ?? '') !== (old.image ?? '')) return true;
    const key = seccompContainerAnnotationPrefix + c.name;
    return (ann[key] ?? '') !== (oldAnn[key] ?? '');
  };
  for (let i = 0; i < cs.length; i++) if (significant(cs[i]!, oldCs[i]!)) return true;
  for (let i = 0; i < inits.length; i++) if (significant(inits[i]!, oldInits[i]!)) return true;
  for (const c of pod.spec?.ephemeralContainers ?? []) {
    const old = (oldPod.spec?.ephemeralContainers ?? []).find((o) => o.name === c.name);
    if (old === undefined || significant(c, old)) return true;
  }
  return false;
}

export function create(opts: PodSecurityOptions = {}): PodSecurity {
  return new PodSecurity(opts);
}
