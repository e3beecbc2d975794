/**
 * The normalized cluster model every config format turns into, and the per-node view `expandCluster` gives.
 * `kubemix up` starts one simulated node per `NodeSpec`; `kubemix check` builds its Node objects from them.
 */

export type NodeOS = 'linux' | 'windows';
export type NodeArch = 'amd64' | 'arm64';
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export const nodeOSes: readonly NodeOS[] = ['linux', 'windows'];
export const nodeArches: readonly NodeArch[] = ['amd64', 'arm64'];
/** In upstream's order (`validateTaintEffect`). */
export const taintEffects: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** A node taint as `spec.taints[]` holds it; `value` is absent for taints without one. */
export interface TaintSpec {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
}

/** Where an EKS node group came from; only set for groups read from an eksctl ClusterConfig. */
export interface EksNodeGroupInfo {
  readonly clusterName: string;
  readonly region: string;
  /** Zones the group's nodes are spread over, round-robin (`<region>a`, `b`, `c` unless the config names them). */
  readonly zones: readonly string[];
  /** `managedNodeGroups` (true) or self-managed `nodeGroups` (false). */
  readonly managed: boolean;
  readonly amiFamily: string;
  /** The EKS AMI type (`AL2_x86_64`, `WINDOWS_CORE_2019_x86_64`, ...). */
  readonly amiType: string;
  readonly capacityType: 'ON_DEMAND' | 'SPOT';
}

/** One node group, normalized: every default applied, every field checked. */
export interface NodeGroupSpec {
  readonly name: string;
  readonly count: number;
  /** Explicit node names (exactly `count` of them); otherwise nodes are `<prefix>-1` .. `<prefix>-<count>`. */
  readonly names?: readonly string[];
  /**
   * What generated node names start with when it is not `name`: eksctl allows upper case in group names,
   * node names are lower case.
   */
  readonly nodeNamePrefix?: string;
  readonly os: NodeOS;
  readonly arch: NodeArch;
  /** `10.0.<build>`; set exactly for Windows groups. */
  readonly windowsBuild?: string;
  /** Control-plane nodes carry kubeadm's role label, exclusion label and NoSchedule taint. */
  readonly controlPlane: boolean;
  /** Capacity in cores (may be fractional, e.g. 0.5). */
  readonly cpu: number;
  /** Capacity as a quantity (`16Gi`). */
  readonly memory: string;
  readonly maxPods: number;
  /** Capacity of the node's root volume as a quantity. */
  readonly ephemeralStorage: string;
  /**
   * What the kubelet holds back (kube-reserved + system-reserved + hard eviction thresholds): allocatable is
   * capacity minus these. Zero for native groups; the EKS bootstrap formula for EKS Linux groups.
   */
  readonly reserved: { readonly cpuMillis: number; readonly memoryBytes: number; readonly ephemeralStorageBytes: number };
  /**
   * Labels the node carries besides the kubelet's own well-known ones (added by `nodeLabels`): the config's
   * labels, EKS/eksctl/cloud-provider labels, and for control-plane groups kubeadm's role labels. On a real
   * cluster the role labels come from kubeadm after registration (the kubelet refuses them in
   * `--node-labels`); a simulated node may register with all of them at once. Config labels in the
   * kubernetes.io namespace are not restricted to the kubelet's allowed set for the same reason.
   */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints the node registers with (`--register-with-taints`), the control-plane taint included. */
  readonly taints: readonly TaintSpec[];
  readonly osImage: string;
  readonly kernelVersion: string;
  readonly containerRuntimeVersion: string;
  readonly kubeletVersion: string;
  readonly instanceType?: string;
  readonly eks?: EksNodeGroupInfo;
}

export interface ClusterSpec {
  readonly name: string;
  /** Which format the spec was read from. */
  readonly source: 'native' | 'eksctl';
  readonly nodeGroups: readonly NodeGroupSpec[];
}

/** One node of an expanded cluster: what its simulated kubelet registers. */
export interface NodeSpec {
  readonly name: string;
  /** The node group's name. */
  readonly group: string;
  /** Position in the whole cluster, from 0; addresses derive from it. */
  readonly index: number;
  readonly os: NodeOS;
  readonly arch: NodeArch;
  readonly windowsBuild?: string;
  readonly osImage: string;
  readonly kernelVersion: string;
  readonly containerRuntimeVersion: string;
  readonly kubeletVersion: string;
  readonly cpu: number;
  readonly memory: string;
  readonly maxPods: number;
  /** `status.capacity` as canonical quantities (cpu, memory, pods, ephemeral-storage). */
  readonly capacity: Readonly<Record<string, string>>;
  /** `status.allocatable`: capacity minus the group's reservations. */
  readonly allocatable: Readonly<Record<string, string>>;
  /** The group's labels plus per-node zone labels (not the kubelet's own, see `nodeLabels`). */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly TaintSpec[];
  readonly controlPlane: boolean;
  /** A unique loopback address (127.0.1.1 for index 0), so node ports of all nodes can listen side by side. */
  readonly internalIP: string;
  /** `spec.podCIDR`: `10.244.<index>.0/24`, continuing into the following /16s past 256 nodes. */
  readonly podCIDR: string;
  /** `aws:///<zone>/i-<17 hex>` for EKS nodes. */
  readonly providerID?: string;
  readonly instanceType?: string;
  readonly region?: string;
  readonly zone?: string;
}
