/**
 * Hazard texts and the YAML fixes that go with them. Messages quote the API server, scheduler, kubelet and
 * runtime word for word where they exist; fixes are fragments to merge into the manifest as written.
 */
import type { Pod, PodSpec, Taint } from 'kubernetes-types/core/v1.js';
import { stringify } from 'yaml';
import type { RemovedApi } from './removed-apis.js';
import { noMatchesMessage } from './removed-apis.js';
import type { Hazard } from './types.js';

export const osLabel = 'kubernetes.io/os';
export const archLabel = 'kubernetes.io/arch';
export const windowsBuildLabel = 'node.kubernetes.io/windows-build';

/** Nests a pod-spec fragment where the kind keeps its pod template. */
export function podSpecFix(kind: string, fragment: Record<string, unknown>): string {
  let v: Record<string, unknown> = { spec: fragment };
  if (kind !== 'Pod') v = { spec: { template: v } };
  if (kind === 'CronJob') v = { spec: { jobTemplate: v } };
  return stringify(v);
}

/** The OS a pod's own fields ask for: `spec.os.name`, the nodeSelector, or single-valued required affinity. */
export function selectedOS(spec: PodSpec | undefined): { fromOSField?: string; fromSelector?: string } {
  const out: { fromOSField?: string; fromSelector?: string } = {};
  if (spec?.os?.name !== undefined && spec.os.name !== '') out.fromOSField = spec.os.name;
  const sel = spec?.nodeSelector?.[osLabel];
  if (sel !== undefined) {
    out.fromSelector = sel;
    return out;
  }
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const values = new Set<string>();
  let allConstrain = terms.length > 0;
  for (const t of terms) {
    const e = (t.matchExpressions ?? []).find((x) => x.key === osLabel && x.operator === 'In');
    if (e === undefined) allConstrain = false;
    else for (const v of e.values ?? []) values.add(v);
  }
  if (allConstrain && values.size === 1) out.fromSelector = [...values][0] as string;
  return out;
}

/** Whether the pod says anything about the OS (`spec.os`, the os label in its selector or required affinity). */
export function hasOSConstraint(spec: PodSpec | undefined): boolean {
  if (spec?.os?.name !== undefined && spec.os.name !== '') return true;
  if (spec?.nodeSelector?.[osLabel] !== undefined) return true;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.length > 0 && terms.every((t) => (t.matchExpressions ?? []).some((e) => e.key === osLabel));
}

export function removedApiHazard(apiVersion: string, kind: string, r: RemovedApi): Hazard {
  const replacement = r.replacement !== undefined ? `; use ${r.replacement}` : '; it has no replacement';
  const note = r.note !== undefined ? ` (${r.note})` : '';
  const h: Hazard = {
    type: 'RemovedAPIVersion',
    severity: 'error',
    message: `${noMatchesMessage(apiVersion, kind)}: ${apiVersion} ${kind} was removed in Kubernetes ${r.removedIn}${replacement}${note}`,
  };
  if (r.replacement !== undefined) h.fix = stringify({ apiVersion: r.replacement });
  return h;
}

/** A refusal of the API server, with a fix for the refusals we know how to repair. */
export function rejectedHazard(message: string, obj: { kind?: string; spec?: unknown }): Hazard {
  const h: Hazard = { type: 'Rejected', severity: 'error', message };
  const spec = (obj.spec ?? {}) as { template?: { metadata?: { labels?: Record<string, string> } } };
  const labels = spec.template?.metadata?.labels;
  if (message.includes('spec.selector: Required value') && labels !== undefined && Object.keys(labels).length > 0) {
    h.fix = stringify({ spec: { selector: { matchLabels: labels } } });
  }
  return h;
}

export function runtimeClassHazard(className: string, message: string, handler: string): Hazard {
  return {
    type: 'RuntimeClassNotFound',
    severity: 'error',
    message: `RuntimeClass "${className}" exists neither in the input nor in the cluster, so every pod is refused: ${message}`,
    fix: stringify({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: className }, handler }),
  };
}

/** `had untolerated taint {key: value}` reasons turned into the tolerations that would lift them. */
export function tolerationsFor(reasons: readonly string[], taintsOf: (reason: string) => readonly Taint[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const r of reasons) {
    for (const t of taintsOf(r)) {
      const key = `${t.key}=${t.value ?? ''}:${t.effect}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const tol: Record<string, unknown> = { key: t.key };
      if (t.value !== undefined && t.value !== '') {
        tol['operator'] = 'Equal';
        tol['value'] = t.value;
      } else {
        tol['operator'] = 'Exists';
      }
      tol['effect'] = t.effect;
      out.push(tol);
    }
  }
  return out;
}

/** Parses `node(s) had untolerated taint {key: value}` (TaintToleration's reason) into key and value. */
export function untoleratedTaintOf(reason: string): { key: string; value: string } | undefined {
  const m = /had untolerated taint \{([^:}]*): ?([^}]*)\}/.exec(reason);
  if (m === null) return undefined;
  return { key: m[1] ?? '', value: m[2] ?? '' };
}

export function podOSName(pod: Pod): string | undefined {
  return pod.spec?.os?.name;
}
