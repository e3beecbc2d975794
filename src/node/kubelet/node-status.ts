/**
 * The Node a simulated kubelet registers and keeps up to date (`pkg/kubelet/kubelet_node_status.go`,
 * `nodestatus/setters.go`): the kubelet's own labels, nodeInfo, capacity and allocatable, addresses, daemon
 * endpoints, images, and the four conditions with upstream's reasons and messages.
 */
import { createHash } from 'node:crypto';
import type { ContainerImage, Node, NodeCondition, Taint } from 'kubernetes-types/core/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';

/**
 * What a simulated node is. Structurally a subset of the cluster model's `NodeSpec` (src/cluster), so an
 * expanded cluster's nodes can be passed as they are; extra fields are simulation knobs.
 */
export interface SimulatedNodeSpec {
  readonly name: string;
  readonly os: 'linux' | 'windows';
  readonly arch: string;
  /** `10.0.<build>` on Windows (`node.kubernetes.io/windows-build`). */
  readonly windowsBuild?: string;
  readonly osImage?: string;
  readonly kernelVersion?: string;
  readonly containerRuntimeVersion?: string;
  readonly kubeletVersion?: string;
  /** Cores, used when `capacity` is not given. */
  readonly cpu?: number;
  /** Quantity, used when `capacity` is not given. */
  readonly memory?: string;
  readonly maxPods?: number;
  readonly capacity?: Readonly<Record<string, string>>;
  readonly allocatable?: Readonly<Record<string, string>>;
  /** `--node-labels`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** `--register-with-taints`. */
  readonly taints?: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
  /** A loopback address of its own (127.x.y.z): NodePorts of every node listen side by side. */
  readonly internalIP: string;
  /** `10.244.N.0/24`; set on the Node at registration when the cluster did not assign one. */
  readonly podCIDR?: string;
  readonly providerID?: string;
  /**
   * RuntimeClass handlers containerd is configured with. Undefined (the default) accepts every handler;
   * a list makes others fail sandbox creation.
   */
  readonly runtimeHandlers?: readonly string[];
  /** Simulated registry bandwidth, bytes/s (default 200 MB/s). */
  readonly pullBandwidthBytesPerSecond?: number;
}

export const nodeConditionReasons = {
  KubeletHasSufficientMemory: 'KubeletHasSufficientMemory',
  KubeletHasNoDiskPressure: 'KubeletHasNoDiskPressure',
  KubeletHasSufficientPID: 'KubeletHasSufficientPID',
  KubeletReady: 'KubeletReady',
  KubeletNotReady: 'KubeletNotReady',
} as const;

/** The Ready=False message while no CNI plugin has written its configuration. */
export const cniNotInitializedMessage =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

export const defaultKubeletVersion = 'v1.32.0';
export const defaultContainerRuntimeVersion = 'containerd://1.7.24';
export const kubeletPort = 10250;

const windowsProducts: Record<string, [string, number]> = {
  '10.0.17763': ['Windows Server 2019 Datacenter', 6532],
  '10.0.20348': ['Windows Server 2022 Datacenter', 2849],
  '10.0.26100': ['Windows Server 2025 Datacenter', 2314],
};

/** `osImage` the kubelet reports: the distribution's PRETTY_NAME, or the Windows ProductName. */
export function defaultOsImage(spec: Pick<SimulatedNodeSpec, 'os' | 'windowsBuild'>): string {
  if (spec.os === 'windows') return windowsProducts[spec.windowsBuild ?? '']?.[0] ?? 'Windows Server Datacenter';
  return 'Ubuntu 22.04.4 LTS';
}

/** `kernelVersion`: `uname -r` on Linux, `<major>.<minor>.<build>.<UBR>` on Windows. */
export function defaultKernelVersion(spec: Pick<SimulatedNodeSpec, 'os' | 'windowsBuild' | 'arch'>): string {
  if (spec.os === 'windows') {
    const build = spec.windowsBuild ?? '10.0.17763';
    return `${build}.${windowsProducts[build]?.[1] ?? 1}`;
  }
  return '5.15.0-1057-aws';
}

/** The full Windows version (`10.0.20348.2849`) containerd matches images against. */
export function windowsOsVersion(spec: SimulatedNodeSpec): string | undefined {
  if (spec.os !== 'windows') return undefined;
  const kernel = spec.kernelVersion ?? defaultKernelVersion(spec);
  // The build label is what the node is; a kernel version that disagrees with it does not win.
  if (spec.windowsBuild !== undefined && !kernel.startsWith(`${spec.windowsBuild}.`)) return `${spec.windowsBuild}.0`;
  return kernel;
}

function hex(seed: string, n: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, n);
}

function uuid(seed: string): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The kubelet's own labels (`initialNode` + `nodestatus`), Windows adding `node.kubernetes.io/windows-build`. */
export function kubeletNodeLabels(spec: Pick<SimulatedNodeSpec, 'name' | 'os' | 'arch' | 'windowsBuild'>): Record<string, string> {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': spec.arch,
    'beta.kubernetes.io/os': spec.os,
    'kubernetes.io/arch': spec.arch,
    'kubernetes.io/hostname': spec.name,
    'kubernetes.io/os': spec.os,
  };
  if (spec.os === 'windows' && spec.windowsBuild !== undefined) labels['node.kubernetes.io/windows-build'] = spec.windowsBuild;
  return labels;
}

/** Capacity from `capacity` or from cpu/memory/maxPods (Linux also reports empty hugepages). */
export function nodeCapacity(spec: SimulatedNodeSpec): Record<string, string> {
  const base: Record<string, string> = spec.capacity !== undefined
    ? { ...spec.capacity }
    : {
        cpu: String(spec.cpu ?? 4),
        'ephemeral-storage': '100Gi',
        memory: canonicalQuantity(spec.memory ?? '16Gi'),
        pods: String(spec.maxPods ?? 110),
      };
  if (spec.os === 'linux') {
    base['hugepages-1Gi'] ??= '0';
    base['hugepages-2Mi'] ??= '0';
  }
  return sortKeys(base);
}

export function nodeAllocatable(spec: SimulatedNodeSpec): Record<string, string> {
  const cap = nodeCapacity(spec);
  return sortKeys(spec.allocatable !== undefined ? { ...cap, ...spec.allocatable } : cap);
}

function sortKeys(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k] ?? '';
  return out;
}

/** The Ready condition's status/reason/message for a given network state. */
export function readyCondition(networkReady: boolean): Pick<NodeCondition, 'status' | 'reason' | 'message'> {
  return networkReady
    ? { status: 'True', reason: nodeConditionReasons.KubeletReady, message: 'kubelet is posting ready status' }
    : { status: 'False', reason: nodeConditionReasons.KubeletNotReady, message: cniNotInitializedMessage };
}

/**
 * The four kubelet conditions in upstream's order. `lastHeartbeatTime` is `now`; `lastTransitionTime`
 * is kept from `previous` while the status does not change.
 */
export function nodeConditions(networkReady: boolean, now: string, previous: readonly NodeCondition[] = []): NodeCondition[] {
  const want: Array<Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>> = [
    { type: 'MemoryPressure', status: 'False', reason: nodeConditionReasons.KubeletHasSufficientMemory, message: 'kubelet has sufficient memory available' },
    { type: 'DiskPressure', status: 'False', reason: nodeConditionReasons.KubeletHasNoDiskPressure, message: 'kubelet has no disk pressure' },
    { type: 'PIDPressure', status: 'False', reason: nodeConditionReasons.KubeletHasSufficientPID, message: 'kubelet has sufficient PID available' },
    { type: 'Ready', ...readyCondition(networkReady) },
  ];
  return want.map((c) => {
    const prev = previous.find((p) => p.type === c.type);
    const lastTransitionTime = prev !== undefined && prev.status === c.status && prev.lastTransitionTime !== undefined ? prev.lastTransitionTime : now;
    return { type: c.type, status: c.status, lastHeartbeatTime: now, lastTransitionTime, ...(c.reason !== undefined ? { reason: c.reason } : {}), ...(c.message !== undefined ? { message: c.message } : {}) };
  });
}

/** The Node object the kubelet creates on registration (`initialNode` + the status setters). */
export function initialNode(spec: SimulatedNodeSpec, opts: { now: string; networkReady: boolean; images?: ContainerImage[] }): Node {
  const taints: Taint[] = (spec.taints ?? []).map((t) => ({ key: t.key, ...(t.value !== undefined && t.value !== '' ? { value: t.value } : {}), effect: t.effect }));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      labels: sortKeys({ ...kubeletNodeLabels(spec), ...spec.labels }),
      annotations: {
        // kubeadm records the CRI socket on the Node it joins; the kubelet sets the attach-detach annotation.
        // (`node.alpha.kubernetes.io/ttl` comes from the controller manager's TTL controller, not from here.)
        'kubeadm.alpha.kubernetes.io/cri-socket': spec.os === 'windows' ? 'npipe:////./pipe/containerd-containerd' : 'unix:///var/run/containerd/containerd.sock',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      ...(spec.podCIDR !== undefined ? { podCIDR: spec.podCIDR, podCIDRs: [spec.podCIDR] } : {}),
      ...(spec.providerID !== undefined ? { providerID: spec.providerID } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: nodeStatus(spec, opts),
  };
}

/** The kubelet-owned part of `status`. */
export function nodeStatus(
  spec: SimulatedNodeSpec,
  opts: { now: string; networkReady: boolean; images?: ContainerImage[]; previousConditions?: readonly NodeCondition[] },
): NonNullable<Node['status']> {
  return {
    capacity: nodeCapacity(spec),
    allocatable: nodeAllocatable(spec),
    conditions: nodeConditions(opts.networkReady, opts.now, opts.previousConditions),
    addresses: [
      { type: 'InternalIP', address: spec.internalIP },
      { type: 'Hostname', address: spec.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
    nodeInfo: {
      machineID: hex(`machine/${spec.name}`, 32),
      systemUUID: uuid(`system/${spec.name}`),
      bootID: uuid(`boot/${spec.name}`),
      kernelVersion: spec.kernelVersion ?? defaultKernelVersion(spec),
      osImage: spec.osImage ?? defaultOsImage(spec),
      containerRuntimeVersion: spec.containerRuntimeVersion ?? defaultContainerRuntimeVersion,
      kubeletVersion: spec.kubeletVersion ?? defaultKubeletVersion,
      // Left empty by 1.31+ kubelets (DisableNodeKubeProxyVersion).
      kubeProxyVersion: '',
      operatingSystem: spec.os,
      architecture: spec.arch,
    },
    // containerd 1.7 does not report runtime handlers, so 1.32 kubelets leave status.runtimeHandlers unset.
    ...(opts.images !== undefined && opts.images.length > 0 ? { images: opts.images } : {}),
  };
}
