/**
 * The stable report of `kubemix check` (`-o json` prints a `CheckReport`). Fields are only ever added;
 * consumers should ignore fields they do not know. Node groups are keyed `<os>/<arch>` or
 * `<os>/<arch> <windows build>` (`linux/amd64`, `windows/amd64 10.0.17763`).
 */

/** Schema identifier of the JSON report. */
export const reportApiVersion = 'kubemix.dev/v1alpha1';
export const reportKind = 'CheckReport';

export interface CheckReport {
  apiVersion: typeof reportApiVersion;
  kind: typeof reportKind;
  cluster: ClusterSummary;
  /** One entry per workload (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob), in input order. */
  workloads: WorkloadReport[];
  /** Non-workload objects with a problem (removed API versions, rejected objects). */
  objects: ObjectReport[];
  summary: CheckSummary;
}

export interface ClusterSummary {
  /** `default` topology, a cluster `config` file, or a live cluster through a `kubeconfig`. */
  source: 'default' | 'config' | 'kubeconfig';
  name: string;
  nodeGroups: NodeGroupSummary[];
}

export interface NodeGroupSummary {
  group: string;
  os: string;
  arch: string;
  windowsBuild?: string;
  nodes: string[];
}

/** Where a manifest came from: the file (`-` for stdin) and the document's position in it (from 1). */
export interface SourceRef {
  file: string;
  document: number;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
  source: SourceRef;
}

export interface WorkloadReport extends ObjectRef {
  /** Pods the controller would create (a DaemonSet: one per eligible node). */
  desiredPods: number;
  /** Pods placed, per node group and node outcome. */
  placements: Placement[];
  /** Pods the scheduler could not place, with the FailedScheduling message (identical messages merged). */
  pending: PendingPods[];
  /** Every node group of the cluster: feasible for the pod template or not, and why not. */
  groups: GroupFeasibility[];
  hazards: Hazard[];
  /** True when every desired pod is placed and runs, and the object is accepted. */
  ok: boolean;
}

export interface Placement {
  group: string;
  /** Pods per node name. */
  nodes: Record<string, number>;
  pods: number;
  /** What the pod's containers do on the node: `Running`, or the kubelet's waiting/failure reason. */
  outcome: NodeOutcome;
  /** The kubelet's or runtime's message when the outcome is not `Running`. */
  message?: string;
}

/**
 * `Running`; an image failure (`ErrImagePull`, `InvalidImageName`, `CrashLoopBackOff` for exec format
 * errors, `StartError` for a Windows build mismatch); or a kubelet admission rejection (`PodOSNotSupported`,
 * `PodOSSelectorNodeLabelDoesNotMatch`, and for pods with `spec.nodeName` also `OutOfcpu`, `NodeAffinity`,
 * `TaintToleration`, ...).
 */
export type NodeOutcome = 'Running' | 'ErrImagePull' | 'InvalidImageName' | 'CrashLoopBackOff' | 'StartError' | 'PodOSNotSupported' | 'PodOSSelectorNodeLabelDoesNotMatch' | (string & {});

export interface PendingPods {
  pods: number;
  /** `FailedScheduling` event message, word for word. */
  message: string;
}

export interface GroupFeasibility {
  group: string;
  nodes: number;
  /** Nodes of the group the scheduler's filters accept (for a DaemonSet: nodes it runs a pod on). */
  feasibleNodes: number;
  /** Why the other nodes are rejected: the scheduler's per-node reasons (or the DaemonSet's), counted. */
  reasons: ReasonCount[];
  /** What the pod's containers do on this group's nodes (only for feasible groups). */
  outcome?: NodeOutcome;
  message?: string;
}

export interface ReasonCount {
  reason: string;
  nodes: number;
}

export type HazardType =
  | 'NoOSConstraint'
  | 'ImagePlatformMismatch'
  | 'DaemonSetCannotRun'
  | 'OSFieldMismatch'
  | 'OSFieldMissing'
  | 'RuntimeClassNotFound'
  | 'RemovedAPIVersion'
  | 'Rejected'
  | 'NodeRejected'
  | 'Unschedulable';

export interface Hazard {
  type: HazardType;
  /** `error` hazards mean some pod cannot be placed or run (exit 1); `warning` ones do not. */
  severity: 'error' | 'warning';
  message: string;
  /** What to write instead: YAML to add or change, ready to merge into the manifest. */
  fix?: string;
}

export interface ObjectReport extends ObjectRef {
  hazards: Hazard[];
}

export interface CheckSummary {
  workloads: number;
  desiredPods: number;
  placedPods: number;
  runningPods: number;
  pendingPods: number;
  errors: number;
  warnings: number;
  /** Exit 0 when true, 1 when false. */
  ok: boolean;
}
