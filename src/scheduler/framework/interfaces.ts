/**
 * Extension points (pkg/scheduler/framework/interface.go): one small interface each, all with `name`.
 * A plugin implements any subset; the framework finds them with the type guards below.
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { Labels, Selector } from '../../api/labels.js';
import type { CycleState } from './cycle-state.js';
import type { Status } from './status.js';
import type { NodeTable } from './node-table.js';
import type { NodeInfo, PodInfo } from './types.js';

export const maxNodeScore = 100;
export const minNodeScore = 0;

export interface Plugin {
  readonly name: string;
}

/** `PreFilterResult`: undefined node names means all nodes. */
export interface PreFilterResult {
  nodeNames: Set<string> | undefined;
}

export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status;
  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status };
  preFilterExtensions?(): PreFilterExtensions | undefined;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
}

/**
 * A Filter whose verdict depends only on the node object (`nodeInfo.node` and what `setNode` derives from
 * it: name, labels, taints, unschedulable) and on the pod fields and PreFilter state that
 * `nodeObjectFilterKey` names: never on the node's pods or resources. Equal keys promise equal verdicts
 * for the same node object, so the framework may reuse a verdict of an earlier cycle (see
 * node-verdicts.ts). The key is asked once per cycle, after PreFilter.
 */
export interface NodeObjectFilterPlugin extends FilterPlugin {
  nodeObjectFilterKey(state: CycleState, pod: Pod): string;
}

/**
 * A Filter that can also judge a node by its position in the snapshot's list, from the node table's columns
 * (node-table.ts), without reading the NodeInfo. `positionFilter` is asked once per cycle, after PreFilter:
 * it returns the judge, which answers what `filter` would for `table.list[i]`, or undefined when this pod
 * needs more than the columns hold.
 */
export interface PositionFilterPlugin extends FilterPlugin {
  positionFilter(state: CycleState, pod: Pod, table: NodeTable): ((i: number) => Status) | undefined;
}

export interface NominatingInfo {
  nominatedNodeName: string;
  /** `ModeOverride` sets/clears the nominated node; `ModeNoop` leaves it. */
  mode: 'Override' | 'Noop';
}

export interface PostFilterResult {
  nominatingInfo: NominatingInfo | undefined;
}

/** Reads filter statuses per node; nodes never evaluated answer `absentNodesStatus`. */
export interface NodeToStatusReader {
  get(nodeName: string): Status;
}

export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: Pod, filteredNodeStatusMap: NodeToStatusReader): { result?: PostFilterResult; status: Status };
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): Status;
}

export interface NodeScore {
  name: string;
  score: number;
}

export interface ScoreExtensions {
  normalizeScore(state: CycleState, pod: Pod, scores: NodeScore[]): Status;
}

export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status };
  /**
   * `score(...).score` without the result object (the runtime prefers it; it runs for every feasible node
   * of every pod). Where Score would fail, it throws a `ScoreFailure` with Score's status.
   */
  scoreValue?(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number;
  /**
   * Scores every node at once from the node table (node-table.ts) when the cycle knows the nodes'
   * positions (`state.nodePositions`): sets `scores[j].score` for the node at `positions[j]`, as `score`
   * would, and returns true; returns false (having set nothing) when this pod needs the NodeInfos.
   * Where Score would fail, it throws a `ScoreFailure` with Score's status.
   */
  scorePositions?(state: CycleState, pod: Pod, table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean;
  scoreExtensions?(): ScoreExtensions | undefined;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): Status;
  unreserve(state: CycleState, pod: Pod, nodeName: string): void;
}

export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: Pod, nodeName: string): { status: Status; timeoutMs: number };
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status>;
}

export interface BindPlugin extends Plugin {
  /** Skip means "not mine"; the next bind plugin is tried. */
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<Status>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: Pod, nodeName: string): void;
}

export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfoLike, b: QueuedPodInfoLike): boolean;
}

/** What QueueSort compares. */
export interface QueuedPodInfoLike {
  readonly podInfo: { readonly pod: Pod };
  /** When the pod was last added to the queue (ms). */
  readonly timestamp: number;
}

function has(p: Plugin, method: string): boolean {
  return typeof (p as unknown as Record<string, unknown>)[method] === 'function';
}

export const isPreFilterPlugin = (p: Plugin): p is PreFilterPlugin => has(p, 'preFilter');
export const isFilterPlugin = (p: Plugin): p is FilterPlugin => has(p, 'filter');
export const isNodeObjectFilterPlugin = (p: Plugin): p is NodeObjectFilterPlugin => has(p, 'filter') && has(p, 'nodeObjectFilterKey');
export const isPositionFilterPlugin = (p: Plugin): p is PositionFilterPlugin => has(p, 'filter') && has(p, 'positionFilter');
export const isPostFilterPlugin = (p: Plugin): p is PostFilterPlugin => has(p, 'postFilter');
export const isPreScorePlugin = (p: Plugin): p is PreScorePlugin => has(p, 'preScore');
export const isScorePlugin = (p: Plugin): p is ScorePlugin => has(p, 'score');
export const isReservePlugin = (p: Plugin): p is ReservePlugin => has(p, 'reserve');
export const isPermitPlugin = (p: Plugin): p is PermitPlugin => has(p, 'permit');
export const isPreBindPlugin = (p: Plugin): p is PreBindPlugin => has(p, 'preBind');
export const isBindPlugin = (p: Plugin): p is BindPlugin => has(p, 'bind');
export const isPostBindPlugin = (p: Plugin): p is PostBindPlugin => has(p, 'postBind');
export const isQueueSortPlugin = (p: Plugin): p is QueueSortPlugin => has(p, 'less');

/**
 * What one re-copy of a NodeInfo into the snapshot changed, for plugins that count the node's pods: the
 * pods (as PodInfo objects) that left and came, relative to the copy before it.
 */
export interface NodeInfoChange {
  /**
   * The node's name, labels or spec changed too: what a count's domain may depend on. A new node object
   * with only a new status (the kubelet's heartbeats) is not a change here.
   */
  readonly nodeChanged: boolean;
  readonly added: readonly PodInfo[];
  readonly removed: readonly PodInfo[];
}

/** `NodeInfoLister` over the cycle's snapshot. */
export interface NodeInfoLister {
  list(): readonly NodeInfo[];
  havePodsWithAffinityList(): readonly NodeInfo[];
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
  /**
   * For plugins that keep derived state across cycles: the NodeInfos re-copied since `cursor` (a value
   * of `changeCursor()`), as `log.slice(from)` (repeats possible), and the position of a NodeInfo in
   * `list()`. Undefined when the lister keeps no log or `cursor` is too old: compare every node then.
   * `changes[j]`, when known, says what the copy logged at `log[j]` changed in the node's pods.
   */
  changesSince?(cursor: number): { log: readonly NodeInfo[]; from: number; changes?: readonly (NodeInfoChange | undefined)[] } | undefined;
  changeCursor?(): number;
  indexOf?(nodeInfo: NodeInfo): number | undefined;
  /**
   * The size of an image as the cluster's image states record it, which is the size every node's summary
   * of it carries; undefined when no node holds it (or the lister does not know).
   */
  imageSize?(name: string): number | undefined;
  /** `list()` as columns (see node-table.ts), when the lister keeps them. */
  readonly table?: NodeTable;
}

/** Objects whose selectors define a pod's default spreading (`helper.DefaultSelector`). */
export interface SpreadingSelectorSource {
  /** Selectors (as label sets) of Services in `namespace`; services without a selector are omitted. */
  serviceSelectors(namespace: string): readonly Readonly<Record<string, string>>[];
  /** The label selector of the controller owning the pod (ReplicaSet, StatefulSet, ReplicationController), if known. */
  controllerSelector(pod: Pod): Selector | undefined;
}

/** What plugins may use of the scheduler (`framework.Handle`). */
export interface Handle {
  snapshot(): NodeInfoLister;
  /** Pods nominated to run on `nodeName` (after preemption). */
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  /** Labels of a namespace, for namespaceSelector; undefined when unknown. */
  namespaceLabels(namespace: string): Labels;
  /** Names of namespaces matching a selector. */
  namespacesMatching(selector: Selector): string[];
  spreadingSelectorSource(): SpreadingSelectorSource | undefined;
  /** PersistentVolumeClaims, PersistentVolumes and StorageClasses (the informers' view); undefined offline. */
  volumeLister(): VolumeLister | undefined;
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status;
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status;
  /** Uniform random in [0, 1); injectable for deterministic tests. */
  random(): number;
  /** Side effects against the API (preemption, binding); undefined in offline use. */
  apiActions(): ApiActions | undefined;
  /** The profile's scheduler name. */
  readonly schedulerName: string;
}

/** API side effects plugins request; the Scheduler driver implements them with the Client. */
export interface ApiActions {
  bind(pod: Pod, nodeName: string): Promise<void>;
  /** Deletes a preemption victim after marking it with the DisruptionTarget condition; records `Preempted`. */
  preemptVictim(victim: Pod, preemptor: Pod, nodeName: string): Promise<void>;
  /** Clears status.nominatedNodeName of a pod. */
  clearNominatedNodeName(pod: Pod): Promise<void>;
  /** Pod disruption budgets (policy/v1) currently known. */
  podDisruptionBudgets(): readonly PodDisruptionBudgetLike[];
  /** Updates a PersistentVolume (VolumeBinding's PreBind pre-binds it to a claim); returns the stored object. */
  updatePersistentVolume?(pv: PersistentVolume): Promise<PersistentVolume>;
  /** Updates a PersistentVolumeClaim (VolumeBinding's PreBind sets the selected node); returns the stored object. */
  updatePersistentVolumeClaim?(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
}

/**
 * Read access to the storage objects VolumeBinding needs (the listers upstream takes from the shared
 * informer factory). Objects are the informers' and must not be mutated.
 */
export interface VolumeLister {
  persistentVolumeClaim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  persistentVolume(name: string): PersistentVolume | undefined;
  persistentVolumes(): readonly PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  /** Whether the pod still exists (with this UID): VolumeBinding stops waiting for bindings of a deleted pod. */
  podExists(namespace: string, name: string, uid: string | undefined): boolean;
}

/** The fields of a PodDisruptionBudget preemption reads. */
export interface PodDisruptionBudgetLike {
  metadata?: { namespace?: string; name?: string };
  spec?: { selector?: import('kubernetes-types/meta/v1.js').LabelSelector };
  status?: { disruptionsAllowed: number; disruptedPods?: Record<string, string> };
}

/** PreEnqueue: decides whether a pod may enter the active queue at all (SchedulingGates). */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): Status;
}
export const isPreEnqueuePlugin = (p: Plugin): p is PreEnqueuePlugin => has(p, 'preEnqueue');

/** Cluster event action types, a bit set as upstream's `framework.ActionType`. */
export const ActionType = {
  Add: 1,
  Delete: 2,
  UpdateNodeAllocatable: 4,
  UpdateNodeLabel: 8,
  UpdateNodeTaint: 16,
  UpdateNodeCondition: 32,
  UpdateNodeAnnotation: 64,
  UpdatePodLabel: 128,
  UpdatePodScaleDown: 256,
  UpdatePodTolerations: 512,
  UpdatePodSchedulingGatesEliminated: 1024,
  /** Any other update of the object. */
  UpdateOther: 2048,
} as const;
export const updateActions = 4 | 8 | 16 | 32 | 64 | 128 | 256 | 512 | 1024 | 2048;
export const allActions = 1 | 2 | updateActions;

/** `Pod` events concern assigned pods; `UnscheduledPod` events concern the waiting pod itself; `*` is a wildcard. */
export type EventResource = 'Node' | 'AssignedPod' | 'UnscheduledPod' | 'PodDisruptionBudget' | 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass' | '*';

export interface ClusterEvent {
  resource: EventResource;
  actionType: number;
  label: string;
}

export function eventMatches(registered: ClusterEvent, happened: ClusterEvent): boolean {
  if (registered.resource === '*' || happened.resource === '*') return true;
  return registered.resource === happened.resource && (registered.actionType & happened.actionType) !== 0;
}

export type QueueingHint = 'Queue' | 'QueueSkip';
/** Decides whether an event may make `pod` schedulable; objects are the event's old/new states. */
export type QueueingHintFn = (pod: Pod, oldObj: unknown, newObj: unknown) => QueueingHint;

export interface ClusterEventWithHint {
  event: ClusterEvent;
  /** Absent: always Queue. */
  queueingHintFn?: QueueingHintFn;
}

/** Plugins that reject pods say which events may make them schedulable again. */
export interface EnqueueExtensions extends Plugin {
  eventsToRegister(): ClusterEventWithHint[];
}
export const isEnqueueExtensions = (p: Plugin): p is EnqueueExtensions => has(p, 'eventsToRegister');
