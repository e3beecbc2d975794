/**
 * The node lifecycle controller's pure rules (pkg/controller/nodelifecycle/node_lifecycle_controller.go,
 * v1.32; semantics.md section 8): condition taints, node health from Ready heartbeats and Lease renewals,
 * zone states, and the NoExecute tainting rate limiter.
 */
import type { Node, NodeCondition, Taint } from 'kubernetes-types/core/v1.js';
import { semanticEqual } from '../_context.js';
import { formatTime, parseTime } from '../_pods.js';
import { deepCopy } from '../../util/deep-copy.js';

export const TaintNodeNotReady = 'node.kubernetes.io/not-ready';
export const TaintNodeUnreachable = 'node.kubernetes.io/unreachable';
export const TaintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
export const TaintNodeMemoryPressure = 'node.kubernetes.io/memory-pressure';
export const TaintNodeDiskPressure = 'node.kubernetes.io/disk-pressure';
export const TaintNodeNetworkUnavailable = 'node.kubernetes.io/network-unavailable';
export const TaintNodePIDPressure = 'node.kubernetes.io/pid-pressure';
export const LabelNodeExcludeDisruption = 'node.kubernetes.io/exclude-disruption';

export const UnreachableTaintTemplate: Taint = { key: TaintNodeUnreachable, effect: 'NoExecute' };
export const NotReadyTaintTemplate: Taint = { key: TaintNodeNotReady, effect: 'NoExecute' };

const nodeConditionToTaintKey: Record<string, Record<string, string>> = {
  Ready: { False: TaintNodeNotReady, Unknown: TaintNodeUnreachable },
  MemoryPressure: { True: TaintNodeMemoryPressure },
  DiskPressure: { True: TaintNodeDiskPressure },
  NetworkUnavailable: { True: TaintNodeNetworkUnavailable },
  PIDPressure: { True: TaintNodePIDPressure },
};

const conditionTaintKeys = new Set([
  TaintNodeNotReady,
  TaintNodeUnreachable,
  TaintNodeNetworkUnavailable,
  TaintNodeMemoryPressure,
  TaintNodeDiskPressure,
  TaintNodePIDPressure,
]);

export function getNodeCondition(node: Node, type: string): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === type);
}

/** `MatchTaint`: same key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function taintExists(taints: readonly Taint[] | undefined, t: Taint): boolean {
  return (taints ?? []).some((x) => matchTaint(x, t));
}

/**
 * `doNoScheduleTaintingPass`: the NoSchedule taints to add and remove so that the condition taints and the
 * unschedulable taint match the node's conditions and `spec.unschedulable`.
 */
export function noScheduleTaintDiff(node: Node): { add: Taint[]; remove: Taint[] } {
  const want: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = nodeConditionToTaintKey[c.type]?.[c.status];
    if (key !== undefined) want.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable === true) want.push({ key: TaintNodeUnschedulable, effect: 'NoSchedule' });
  const have = (node.spec?.taints ?? []).filter(
    (t) => t.effect === 'NoSchedule' && (t.key === TaintNodeUnschedulable || conditionTaintKeys.has(t.key)),
  );
  return {
    add: want.filter((t) => !have.some((h) => matchTaint(h, t))),
    remove: have.filter((h) => !want.some((t) => matchTaint(h, t))),
  };
}

/** `SwapNodeControllerTaint` on a taint list: added taints get `timeAdded`; removed ones go. */
export function swapTaints(taints: readonly Taint[] | undefined, add: readonly Taint[], remove: readonly Taint[], now: number): Taint[] {
  let out = (taints ?? []).filter((t) => !remove.some((r) => matchTaint(r, t)));
  for (const a of add) {
    const next: Taint = { ...a, timeAdded: formatTime(now) };
    if (out.some((t) => matchTaint(t, a))) out = out.map((t) => (matchTaint(t, a) ? next : t));
    else out = [...out, next];
  }
  return out;
}

/** What the controller remembers about a node between passes (`nodeHealthData`). */
export interface NodeHealth {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  /** The Ready condition seen last time. */
  readyCondition: NodeCondition | undefined;
  leaseRenewTime: number | undefined;
}

export interface HealthOptions {
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
}

export interface HealthResult {
  health: NodeHealth;
  gracePeriodMs: number;
  /** The Ready condition as observed before this pass (a fake Unknown one if never posted). */
  observedReady: NodeCondition;
  /** The Ready condition after this pass. */
  currentReady: NodeCondition | undefined;
  /** The node with conditions set Unknown, when the status must be written. */
  updatedNode: Node | undefined;
}

/**
 * `tryUpdateNodeHealth`: advances the probe timestamp on a new Ready heartbeat or Lease renewal; after the
 * grace period (startup grace if Ready was never posted) sets Ready, MemoryPressure, DiskPressure and
 * PIDPressure to Unknown (`NodeStatusUnknown` / `NodeStatusNeverUpdated`).
 */
export function tryUpdateNodeHealth(
  node: Node,
  saved: NodeHealth | undefined,
  leaseRenewTime: number | undefined,
  now: number,
  opts: HealthOptions,
): HealthResult {
  const created = parseTime(node.metadata?.creationTimestamp) ?? now;
  const currentReadyCond = getNodeCondition(node, 'Ready');
  let observed: NodeCondition;
  let grace: number;
  let health = saved === undefined ? undefined : { ...saved };
  if (currentReadyCond === undefined) {
    observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata?.creationTimestamp ?? '', lastTransitionTime: node.metadata?.creationTimestamp ?? '' };
    grace = opts.nodeStartupGracePeriodMs;
    if (health !== undefined) health.readyCondition = undefined;
    else health = { probeTimestamp: created, readyTransitionTimestamp: created, readyCondition: undefined, leaseRenewTime: undefined };
  } else {
    observed = { ...currentReadyCond };
    grace = opts.nodeMonitorGracePeriodMs;
  }
  const savedCond = saved?.readyCondition;
  const savedLease = saved?.leaseRenewTime;
  if (health === undefined) {
    health = { probeTimestamp: now, readyTransitionTimestamp: now, readyCondition: currentReadyCond, leaseRenewTime: undefined };
  } else if (savedCond === undefined && currentReadyCond !== undefined) {
    health = { probeTimestamp: now, readyTransitionTimestamp: now, readyCondition: currentReadyCond, leaseRenewTime: savedLease };
  } else if (savedCond !== undefined && currentReadyCond === undefined) {
    health = { probeTimestamp: now, readyTransitionTimestamp: now, readyCondition: undefined, leaseRenewTime: savedLease };
  } else if (savedCond !== undefined && currentReadyCond !== undefined && savedCond.lastHeartbeatTime !== currentReadyCond.lastHeartbeatTime) {
    const transition = savedCond.lastTransitionTime !== currentReadyCond.lastTransitionTime ? now : health.readyTransitionTimestamp;
    health = { probeTimestamp: now, readyTransitionTimestamp: transition, readyCondition: currentReadyCond, leaseRenewTime: savedLease };
  }
  if (leaseRenewTime !== undefined && (savedLease === undefined || savedLease < leaseRenewTime)) {
    health = { ...health, leaseRenewTime, probeTimestamp: now };
  }
  let updatedNode: Node | undefined;
  let currentReady = currentReadyCond;
  if (now > health.probeTimestamp + grace) {
    const conds = [...(node.status?.conditions ?? [])];
    const nowStr = formatTime(now);
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const i = conds.findIndex((c) => c.type === type);
      const cur = conds[i];
      if (cur === undefined) {
        conds.push({
          type,
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: node.metadata?.creationTimestamp ?? nowStr,
          lastTransitionTime: nowStr,
        });
      } else if (cur.status !== 'Unknown') {
        conds[i] = { ...cur, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: nowStr };
      }
    }
    const copy = deepCopy(node);
    const n: Node = { ...copy, status: { ...copy.status, conditions: conds } };
    currentReady = conds.find((c) => c.type === 'Ready');
    if (!semanticEqual(currentReady, observed)) {
      updatedNode = n;
      health = { probeTimestamp: health.probeTimestamp, readyTransitionTimestamp: now, readyCondition: currentReady, leaseRenewTime: leaseRenewTime ?? health.leaseRenewTime };
    }
  }
  return { health, gracePeriodMs: grace, observedReady: observed, currentReady, updatedNode };
}

export type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/** `ComputeZoneState`. */
export function computeZoneState(readyConditions: readonly (NodeCondition | undefined)[], unhealthyZoneThreshold: number): { unhealthy: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { unhealthy: notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { unhealthy: notReady, state: 'PartialDisruption' };
  return { unhealthy: notReady, state: 'Normal' };
}

/** `nodetopology.GetZoneKey`: region and zone, empty when neither label is set. */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  if (zone === '' && region === '') return '';
  return `${region}:\x00:${zone}`;
}

/** client-go's token bucket (`flowcontrol.NewTokenBucketRateLimiter`) on an injectable clock. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    private qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }
  tryAccept(now: number): boolean {
    if (this.qps <= 0) return false;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
  /** `SwapLimiter`: a new rate (0 stops all). */
  setQps(qps: number, now: number): void {
    if (qps === this.qps) return;
    this.qps = qps;
    this.tokens = qps <= 0 ? 0 : this.burst;
    this.last = now;
  }
}

/**
 * `labelReconcileInfo`: the beta OS and arch labels follow the stable ones (added when missing). Answers
 * the labels to set, or undefined when nothing changes (`reconcileNodeLabels`).
 */
export function reconcileNodeLabels(node: Node): Record<string, string> | undefined {
  const pairs: [string, string][] = [
    ['kubernetes.io/os', 'beta.kubernetes.io/os'],
    ['kubernetes.io/arch', 'beta.kubernetes.io/arch'],
  ];
  const labels = node.metadata?.labels ?? {};
  const set: Record<string, string> = {};
  for (const [primary, secondary] of pairs) {
    const v = labels[primary];
    if (v === undefined) continue;
    if (labels[secondary] !== v) set[secondary] = v;
  }
  return Object.keys(set).length === 0 ? undefined : set;
}
