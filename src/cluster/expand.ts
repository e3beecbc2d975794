/**
 * From node groups to nodes: names, addresses, per-node zone labels, capacity and allocatable, and the Node
 * object a simulated kubelet would register.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { createHash } from 'node:crypto';
import { canonicalQuantity, formatQuantity, parseQuantity, quantityFromMilli } from '../api/quantity.js';
import { nodeNamesOf } from './_groups.js';
import { fakeAwsId } from './eksctl.js';
import type { ClusterSpec, NodeGroupSpec, NodeSpec } from './types.js';

/**
 * `127.0.1.1` for node 0, then on through `127.0.1.254`, `127.0.2.1`, ...: unique loopback addresses that skip
 * `.0` and `.255` in the last octet and never use 127.0.0.x (127.0.0.1 is the API server's).
 */
export function internalIPForIndex(index: number): string {
  const block = 1 + Math.floor(index / 254);
  const host = 1 + (index % 254);
  return `127.${Math.floor(block / 256)}.${block % 256}.${host}`;
}

/**
 * `10.244.<index>.0/24` for the first 256 nodes (flannel's 10.244.0.0/16), then the following /16s
 * (10.245.0.0/24 ...) and, past 10.255.255.0/24, on from 10.0.0.0/24: distinct /24s for 65,536 nodes.
 */
export function podCIDRForIndex(index: number): string {
  const v = (244 * 256 + index) % 65536;
  return `10.${Math.floor(v / 256)}.${v % 256}.0/24`;
}

function bytesOf(quantity: string): bigint {
  return parseQuantity(quantity).nanos / 1_000_000_000n;
}

function formatBytes(bytes: bigint): string {
  return formatQuantity({ nanos: bytes * 1_000_000_000n, format: 'BinarySI' });
}

function resourcesOf(g: NodeGroupSpec): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const cpuMillis = Math.round(g.cpu * 1000);
  const memory = bytesOf(g.memory);
  const storage = bytesOf(g.ephemeralStorage);
  const capacity = {
    cpu: formatQuantity(quantityFromMilli(cpuMillis)),
    'ephemeral-storage': canonicalQuantity(g.ephemeralStorage),
    memory: canonicalQuantity(g.memory),
    pods: String(g.maxPods),
  };
  const allocatable = {
    cpu: formatQuantity(quantityFromMilli(Math.max(0, cpuMillis - g.reserved.cpuMillis))),
    'ephemeral-storage': formatBytes(max0(storage - BigInt(g.reserved.ephemeralStorageBytes))),
    memory: formatBytes(max0(memory - BigInt(g.reserved.memoryBytes))),
    pods: String(g.maxPods),
  };
  return { capacity, allocatable };
}

const max0 = (b: bigint): bigint => (b < 0n ? 0n : b);

/** One NodeSpec per node, in group order; `index` counts across the whole cluster. */
export function expandCluster(spec: ClusterSpec): NodeSpec[] {
  const nodes: NodeSpec[] = [];
  for (const g of spec.nodeGroups) {
    const { capacity, allocatable } = resourcesOf(g);
    nodeNamesOf(g).forEach((name, i) => {
      const index = nodes.length;
      const labels: Record<string, string> = { ...g.labels };
      let zone: string | undefined;
      if (g.eks !== undefined) {
        zone = g.eks.zones[i % g.eks.zones.length] ?? `${g.eks.region}a`;
        labels['topology.kubernetes.io/zone'] = zone;
        labels['failure-domain.beta.kubernetes.io/zone'] = zone;
      }
      nodes.push({
        name,
        group: g.name,
        index,
        os: g.os,
        arch: g.arch,
        ...(g.windowsBuild !== undefined ? { windowsBuild: g.windowsBuild } : {}),
        osImage: g.osImage,
        kernelVersion: g.kernelVersion,
        containerRuntimeVersion: g.containerRuntimeVersion,
        kubeletVersion: g.kubeletVersion,
        cpu: g.cpu,
        memory: g.memory,
        maxPods: g.maxPods,
        capacity,
        allocatable,
        labels: sortedKeys(labels),
        taints: g.taints.map((t) => ({ ...t })),
        controlPlane: g.controlPlane,
        internalIP: internalIPForIndex(index),
        podCIDR: podCIDRForIndex(index),
        ...(g.eks !== undefined && zone !== undefined
          ? { providerID: `aws:///${zone}/${fakeAwsId('i', `${g.eks.clusterName}/${name}`)}`, region: g.eks.region, zone }
          : {}),
        ...(g.instanceType !== undefined ? { instanceType: g.instanceType } : {}),
      });
    });
  }
  return nodes;
}

function sortedKeys(m: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k] ?? '';
  return out;
}

/**
 * The labels the kubelet sets on its own Node (`initialNode`): hostname, os and arch (also in their beta
 * form), and on Windows `node.kubernetes.io/windows-build`.
 */
export function kubeletLabels(node: Pick<NodeSpec, 'name' | 'os' | 'arch' | 'windowsBuild'>): Record<string, string> {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': node.arch,
    'beta.kubernetes.io/os': node.os,
    'kubernetes.io/arch': node.arch,
    'kubernetes.io/hostname': node.name,
    'kubernetes.io/os': node.os,
  };
  if (node.os === 'windows' && node.windowsBuild !== undefined) labels['node.kubernetes.io/windows-build'] = node.windowsBuild;
  return labels;
}

/** Every label the registered node carries: `--node-labels` over the kubelet's own. */
export function nodeLabels(node: NodeSpec): Record<string, string> {
  return sortedKeys({ ...kubeletLabels(node), ...node.labels });
}

function hexId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 32);
}

function uuidOf(seed: string): string {
  const h = hexId(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * The Node a simulated kubelet registers for `node`, without conditions (the kubelet owns those): labels,
 * taints, pod CIDR, provider ID, addresses, capacity, allocatable and nodeInfo. IDs are stable per node name.
 */
export function nodeObject(node: NodeSpec): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels: nodeLabels(node) },
    spec: {
      podCIDR: node.podCIDR,
      podCIDRs: [node.podCIDR],
      ...(node.providerID !== undefined ? { providerID: node.providerID } : {}),
      ...(node.taints.length > 0 ? { taints: node.taints.map((t) => ({ ...t })) } : {}),
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: node.internalIP },
        { type: 'Hostname', address: node.name },
      ],
      capacity: { ...node.capacity },
      allocatable: { ...node.allocatable },
      nodeInfo: {
        machineID: hexId(`machine/${node.name}`),
        systemUUID: uuidOf(`system/${node.name}`),
        bootID: uuidOf(`boot/${node.name}`),
        kernelVersion: node.kernelVersion,
        osImage: node.osImage,
        containerRuntimeVersion: node.containerRuntimeVersion,
        kubeletVersion: node.kubeletVersion,
        // Deprecated and left empty by 1.31+ kubelets (DisableNodeKubeProxyVersion).
        kubeProxyVersion: '',
        operatingSystem: node.os,
        architecture: node.arch,
      },
    },
  };
}
