/**
 * `matchPodFailurePolicy` (pkg/controller/job/pod_failure_policy.go, v1.32): the first rule of
 * `spec.podFailurePolicy` that a failed pod matches decides what its failure means.
 */
import type { ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern } from 'kubernetes-types/batch/v1.js';

export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PodFailurePolicyMatch {
  /** Set when the pod matched a FailJob rule: the message of the Job's FailureTarget/Failed conditions. */
  failJobMessage?: string;
  /** False when the pod matched an Ignore rule: the failure does not count towards the backoff limits. */
  countFailed: boolean;
  /** The action of the matched rule; undefined when no rule matched. */
  action?: PodFailurePolicyAction;
}

/** Must be called with a failed pod only (phase Failed). */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, failedPod: Pod): PodFailurePolicyMatch {
  if (policy === undefined) return { countFailed: true };
  const status = failedPod.status ?? {};
  const ns = failedPod.metadata?.namespace ?? '';
  const name = failedPod.metadata?.name ?? '';
  for (const [index, rule] of policy.rules.entries()) {
    const action = rule.action as PodFailurePolicyAction;
    // The rule matches on exit codes or on pod conditions; the message of FailJob names what matched.
    let failJobMessage: string;
    if (rule.onExitCodes !== undefined && rule.onExitCodes !== null) {
      const cs = matchOnExitCodes(status, rule.onExitCodes);
      if (cs === undefined) continue;
      failJobMessage = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state?.terminated?.exitCode ?? 0} matching ${action} rule at index ${index}`;
    } else if (rule.onPodConditions !== undefined && rule.onPodConditions !== null) {
      const cond = matchOnPodConditions(status, rule.onPodConditions);
      if (cond === undefined) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${cond.type} matching ${action} rule at index ${index}`;
    } else {
      continue;
    }
    switch (action) {
      case 'Ignore':
        return { countFailed: false, action };
      case 'Count':
      case 'FailIndex':
        return { countFailed: true, action };
      case 'FailJob':
        return { failJobMessage, countFailed: true, action };
      default:
        continue;
    }
  }
  return { countFailed: true };
}

/** The first terminated container (then init container) with a non-zero exit code the requirement matches. */
function matchOnExitCodes(status: PodStatus, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  return matchingContainer(status.containerStatuses, req) ?? matchingContainer(status.initContainerStatuses, req);
}

function matchingContainer(statuses: readonly ContainerStatus[] | undefined, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  for (const cs of statuses ?? []) {
    const code = cs.state?.terminated?.exitCode;
    if (code === undefined) continue;
    if (req.containerName !== undefined && req.containerName !== null && req.containerName !== cs.name) continue;
    if (code !== 0 && exitCodeOperatorMatches(code, req)) return cs;
  }
  return undefined;
}

function exitCodeOperatorMatches(code: number, req: PodFailurePolicyOnExitCodesRequirement): boolean {
  if (req.operator === 'In') return req.values.includes(code);
  if (req.operator === 'NotIn') return !req.values.includes(code);
  return false;
}

/** The first pod condition (in the pod's order) that one of the patterns matches by type and status. */
function matchOnPodConditions(status: PodStatus, patterns: readonly PodFailurePolicyOnPodConditionsPattern[]): PodCondition | undefined {
  for (const c of status.conditions ?? []) {
    for (const p of patterns) if (c.type === p.type && c.status === (p.status ?? 'True')) return c;
  }
  return undefined;
}
