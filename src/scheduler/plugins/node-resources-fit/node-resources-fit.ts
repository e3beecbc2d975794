/**
 * NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go): pod count and requested
 * resources against allocatable minus what the node's pods request; LeastAllocated scoring by default.
 * In 1.32 every shortfall is `Unschedulable` (the UnschedulableAndUnresolvable variant came in 1.34).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type NodeScore,
  type PositionFilterPlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueueingHint,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Resource, isExtendedResourceName, podRequestsNanos } from '../../framework/resources.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeTable } from '../../framework/node-table.js';
import type { NodeInfo } from '../../framework/types.js';
import { asNode, asPod } from '../_hints.js';
import { defaultResources, isDefaultCpuMemory, leastAllocatedByPosition, leastAllocatedCpuMemory, leastResourceScorer, mostResourceScorer, podResourceRequestList, scoreResourceAllocation, type ResourceSpec, type Scorer } from './resource-allocation.js';

export const Name = names.NodeResourcesFit;
export const ReasonTooManyPods = 'Too many pods';
export const insufficientReason = (resource: string): string => `Insufficient ${resource}`;

const preFilterStateKey = 'PreFilter' + Name;
const preScoreStateKey = 'PreScore' + Name;

/** NodeResourcesFitArgs. */
export interface NodeResourcesFitArgs {
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
  scoringStrategy?: { type: 'LeastAllocated' | 'MostAllocated'; resources?: ResourceSpec[] };
}

class PreFilterState implements StateData {
  constructor(readonly request: Resource) {}
  clone(): StateData {
    return this;
  }
}

class PreScoreState implements StateData {
  constructor(readonly podRequests: number[]) {}
  clone(): StateData {
    return this;
  }
}

export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
}

/** `computePodResourceRequest`: requests incl. init containers and overhead. */
export function computePodResourceRequest(pod: Pod): Resource {
  return Resource.fromNanos(podRequestsNanos(pod));
}

/** `fitsRequest`: every shortfall, pod count first. */
export function fitsRequest(podRequest: Resource, nodeInfo: NodeInfo, ignoredExtendedResources?: ReadonlySet<string>, ignoredResourceGroups?: ReadonlySet<string>): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const allowedPodNumber = nodeInfo.allocatable.allowedPodNumber;
  if (nodeInfo.pods.length + 1 > allowedPodNumber) {
    out.push({ resourceName: 'pods', reason: ReasonTooManyPods, requested: 1, used: nodeInfo.pods.length, capacity: allowedPodNumber });
  }
  if (podRequest.milliCPU === 0 && podRequest.memory === 0 && podRequest.ephemeralStorage === 0 && (podRequest.scalarResources?.size ?? 0) === 0) return out;
  const a = nodeInfo.allocatable;
  const r = nodeInfo.requested;
  if (podRequest.milliCPU > 0 && podRequest.milliCPU > a.milliCPU - r.milliCPU) {
    out.push({ resourceName: 'cpu', reason: insufficientReason('cpu'), requested: podRequest.milliCPU, used: r.milliCPU, capacity: a.milliCPU });
  }
  if (podRequest.memory > 0 && podRequest.memory > a.memory - r.memory) {
    out.push({ resourceName: 'memory', reason: insufficientReason('memory'), requested: podRequest.memory, used: r.memory, capacity: a.memory });
  }
  if (podRequest.ephemeralStorage > 0 && podRequest.ephemeralStorage > a.ephemeralStorage - r.ephemeralStorage) {
    out.push({ resourceName: 'ephemeral-storage', reason: insufficientReason('ephemeral-storage'), requested: podRequest.ephemeralStorage, used: r.ephemeralStorage, capacity: a.ephemeralStorage });
  }
  if (podRequest.scalarResources !== undefined) {
    for (const name of [...podRequest.scalarResources.keys()].sort()) {
      const q = podRequest.scalarResources.get(name) ?? 0;
      if (q === 0) continue;
      if (isExtendedResourceName(name)) {
        const group = name.slice(0, name.indexOf('/'));
        if (ignoredExtendedResources?.has(name) === true || ignoredResourceGroups?.has(group) === true) continue;
      }
      if (q > a.scalar(name) - r.scalar(name)) {
        out.push({ resourceName: name, reason: insufficientReason(name), requested: q, used: r.scalar(name), capacity: a.scalar(name) });
      }
    }
  }
  return out;
}

/**
 * The shortfalls of a request without scalar resources on a node with these free amounts, as a bit set in
 * `fitsRequest`'s order (1 pods, 2 cpu, 4 memory, 8 ephemeral-storage); 0 when it fits. Allocates nothing.
 */
function shortfalls(req: Resource, freePods: number, freeMilliCPU: number, freeMemory: number, freeEphemeralStorage: number): number {
  return (
    (freePods < 1 ? 1 : 0) |
    (req.milliCPU > 0 && req.milliCPU > freeMilliCPU ? 2 : 0) |
    (req.memory > 0 && req.memory > freeMemory ? 4 : 0) |
    (req.ephemeralStorage > 0 && req.ephemeralStorage > freeEphemeralStorage ? 8 : 0)
  );
}

function hasScalarResources(req: Resource): boolean {
  return req.scalarResources !== undefined && req.scalarResources.size > 0;
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PositionFilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Name;
  private readonly ignoredResources: ReadonlySet<string>;
  private readonly ignoredResourceGroups: ReadonlySet<string>;
  private readonly resources: readonly ResourceSpec[];
  private readonly scorer: Scorer;
  private readonly fastScore: boolean;
  /** Failure statuses by their reasons (a handful of distinct combinations). */
  private readonly failures = new Map<string, Status>();
  /**
   * The same statuses for requests without scalar resources, by the bit set of shortfalls (1 pods, 2 cpu,
   * 4 memory, 8 ephemeral-storage: `fitsRequest`'s order), so rejecting a node allocates nothing.
   */
  private readonly failuresByMask: (Status | undefined)[] = new Array<Status | undefined>(16).fill(undefined);

  constructor(args: NodeResourcesFitArgs = {}) {
    this.ignoredResources = new Set(args.ignoredResources ?? []);
    this.ignoredResourceGroups = new Set(args.ignoredResourceGroups ?? []);
    this.resources = args.scoringStrategy?.resources ?? defaultResources;
    this.scorer = args.scoringStrategy?.type === 'MostAllocated' ? mostResourceScorer(this.resources) : leastResourceScorer(this.resources);
    this.fastScore = args.scoringStrategy?.type !== 'MostAllocated' && isDefaultCpuMemory(this.resources);
  }

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    state.write(preFilterStateKey, new PreFilterState(computePodResourceRequest(pod)));
    return { status: Status.success() };
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<PreFilterState>(preFilterStateKey);
    if (s === undefined) return Status.error(`error reading "${preFilterStateKey}" from cycleState: not found`);
    const req = s.request;
    if (hasScalarResources(req)) return this.failureFor(req, nodeInfo);
    const mask = shortfalls(req, nodeInfo.freePods, nodeInfo.freeMilliCPU, nodeInfo.freeMemory, nodeInfo.freeEphemeralStorage);
    return mask === 0 ? Status.success() : this.failureByMask(mask, req, nodeInfo);
  }

  /** The status of the shortfalls `mask` (nonzero) of a request without scalar resources, built once per mask. */
  private failureByMask(mask: number, req: Resource, nodeInfo: NodeInfo): Status {
    return (this.failuresByMask[mask] ??= this.failureFor(req, nodeInfo));
  }

  /** `filter` by position: the node table holds the free amounts for requests without scalar resources. */
  positionFilter(state: CycleState, _pod: Pod, table: NodeTable): ((i: number) => Status) | undefined {
    const req = state.read<PreFilterState>(preFilterStateKey)?.request;
    if (req === undefined || hasScalarResources(req)) return undefined;
    const { freePods, freeMilliCPU, freeMemory, freeEphemeralStorage } = table.columns;
    const list = table.list;
    const success = Status.success();
    return (i) => {
      const mask = shortfalls(req, freePods[i] as number, freeMilliCPU[i] as number, freeMemory[i] as number, freeEphemeralStorage[i] as number);
      return mask === 0 ? success : this.failureByMask(mask, req, list[i] as NodeInfo);
    };
  }

  /** The status naming every shortfall of `request` on the node (success when it fits). */
  private failureFor(request: Resource, nodeInfo: NodeInfo): Status {
    const insufficient = fitsRequest(request, nodeInfo, this.ignoredResources, this.ignoredResourceGroups);
    if (insufficient.length === 0) return Status.success();
    const reasons = insufficient.map((i) => i.reason);
    const key = reasons.join('\u0000');
    let st = this.failures.get(key);
    if (st === undefined) this.failures.set(key, (st = newStatus(Code.Unschedulable, ...reasons)));
    return st;
  }

  preScore(state: CycleState, pod: Pod, _nodes: readonly NodeInfo[]): Status {
    state.write(preScoreStateKey, new PreScoreState(podResourceRequestList(pod, this.resources, false)));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  scoreValue(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const s = state.read<PreScoreState>(preScoreStateKey);
    const req = s?.podRequests ?? podResourceRequestList(pod, this.resources, false);
    if (this.fastScore) return leastAllocatedCpuMemory(nodeInfo, req[0] ?? 0, req[1] ?? 0);
    return scoreResourceAllocation(nodeInfo, req, this.resources, false, this.scorer);
  }

  /** LeastAllocated over cpu and memory from the node table. */
  scorePositions(state: CycleState, pod: Pod, table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean {
    if (!this.fastScore) return false;
    const req = state.read<PreScoreState>(preScoreStateKey)?.podRequests ?? podResourceRequestList(pod, this.resources, false);
    leastAllocatedByPosition(table, positions, scores, req[0] ?? 0, req[1] ?? 0);
    return true;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'AssignedPod', actionType: ActionType.Delete | ActionType.UpdatePodScaleDown, label: 'AssignedPodDelete|PodScaleDown' }, queueingHintFn: isSchedulableAfterPodChange },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeAllocatable, label: 'NodeAdd|NodeAllocatableChange' }, queueingHintFn: isSchedulableAfterNodeChange },
      { event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodScaleDown, label: 'PodScaleDown' } },
    ];
  }
}

function isSchedulableAfterPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const oldPod = asPod(oldObj);
  if (oldPod === undefined) return 'Queue';
  const want = computePodResourceRequest(pod);
  const before = computePodResourceRequest(oldPod);
  const newPod = asPod(newObj);
  // Deleted pod: it frees what it requested; a scale-down frees the difference.
  const after = newPod === undefined ? new Resource() : computePodResourceRequest(newPod);
  if (want.milliCPU === 0 && want.memory === 0 && want.ephemeralStorage === 0 && (want.scalarResources?.size ?? 0) === 0) return 'Queue';
  if (want.milliCPU > 0 && before.milliCPU > after.milliCPU) return 'Queue';
  if (want.memory > 0 && before.memory > after.memory) return 'Queue';
  if (want.ephemeralStorage > 0 && before.ephemeralStorage > after.ephemeralStorage) return 'Queue';
  if (want.scalarResources !== undefined) for (const [k, v] of want.scalarResources) if (v > 0 && before.scalar(k) > after.scalar(k)) return 'Queue';
  return newPod === undefined ? 'Queue' : 'QueueSkip';
}

function isSchedulableAfterNodeChange(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const n = asNode(newObj);
  if (n === undefined) return 'Queue';
  const want = computePodResourceRequest(pod);
  const a = Resource.fromList(n.status?.allocatable);
  if (want.milliCPU > a.milliCPU || want.memory > a.memory || want.ephemeralStorage > a.ephemeralStorage) return 'QueueSkip';
  if (want.scalarResources !== undefined) for (const [k, v] of want.scalarResources) if (v > a.scalar(k)) return 'QueueSkip';
  return 'Queue';
}

export function create(args: unknown, _h: Handle): NodeResourcesFit {
  return new NodeResourcesFit((args ?? {}));
}
