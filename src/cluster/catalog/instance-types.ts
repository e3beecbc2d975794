/**
 * EC2 instance types kubemix knows, and what EKS derives from them: architecture, vCPUs, memory, network
 * interfaces, max pods and the kubelet's reservations.
 *
 * Sources:
 * - ENIs and IPv4 addresses per ENI: the EC2 user guide table "IP addresses per network interface per instance
 *   type" (mirrored in awslabs/amazon-eks-ami `files/instance-eni-data.txt`).
 * - Linux max pods: awslabs/amazon-eks-ami `eni-max-pods.txt`, whose header gives the formula
 *   `# of ENI * (# of IPv4 per ENI - 1) + 2` (the first IP of each ENI is the node's, +2 for the host-network
 *   pods aws-node and kube-proxy). That file is the default for AL2, AL2023 (nodeadm) and Bottlerocket; it
 *   ignores prefix delegation, and so do we.
 * - Windows max pods: the EKS user guide, "Deploy Windows nodes on EKS clusters": Windows nodes use one ENI, and
 *   the pods per node equal the IPv4 addresses per ENI minus one.
 * - Reservations: amazon-eks-ami `bootstrap.sh` (`get_cpu_millicores_to_reserve`,
 *   `get_memory_mebibytes_to_reserve`, `evictionHard memory.available<100Mi`). Windows AMIs reserve nothing by
 *   default (`Start-EKSBootstrap.ps1` writes no kubeReserved); the best-practices guide only recommends it.
 */

export type InstanceArch = 'amd64' | 'arm64';

export interface InstanceType {
  readonly name: string;
  readonly arch: InstanceArch;
  readonly vcpu: number;
  readonly memoryMiB: number;
  /** Maximum network interfaces (network card 0). */
  readonly enis: number;
  /** IPv4 addresses per interface, the primary one included. */
  readonly ipv4PerEni: number;
}

/** Sizes shared by a family: [size, vCPU, memory MiB, ENIs, IPv4 per ENI]. */
type SizeRow = readonly [string, number, number, number, number];

// Standard Nitro sizes; memory per vCPU is the family's ratio.
function nitroSizes(mibPerVcpu: number, sizes: readonly string[]): SizeRow[] {
  const table: Record<string, [number, number, number]> = {
    medium: [1, 2, 4],
    large: [2, 3, 10],
    xlarge: [4, 4, 15],
    '2xlarge': [8, 4, 15],
    '4xlarge': [16, 8, 30],
    '8xlarge': [32, 8, 30],
    '9xlarge': [36, 8, 30],
    '12xlarge': [48, 8, 30],
    '16xlarge': [64, 15, 50],
    '18xlarge': [72, 15, 50],
    '24xlarge': [96, 15, 50],
  };
  return sizes.map((s) => {
    const row = table[s];
    if (row === undefined) throw new Error(`no Nitro size ${s}`);
    return [s, row[0], row[0] * mibPerVcpu, row[1], row[2]] as const;
  });
}

const burstable: SizeRow[] = [
  ['nano', 2, 512, 2, 2],
  ['micro', 2, 1024, 2, 2],
  ['small', 2, 2048, 3, 4],
  ['medium', 2, 4096, 3, 6],
  ['large', 2, 8192, 3, 12],
  ['xlarge', 4, 16384, 4, 15],
  ['2xlarge', 8, 32768, 4, 15],
];

const generalX86 = ['large', 'xlarge', '2xlarge', '4xlarge', '8xlarge', '12xlarge', '16xlarge', '24xlarge'];
const graviton = ['medium', 'large', 'xlarge', '2xlarge', '4xlarge', '8xlarge', '12xlarge', '16xlarge'];

const families: readonly (readonly [string, InstanceArch, readonly SizeRow[]])[] = [
  ['t3', 'amd64', burstable],
  // t3a.small has 2 ENIs where t3.small has 3 (eni-max-pods.txt: t3a.small 8, t3.small 11).
  ['t3a', 'amd64', burstable.map((r) => (r[0] === 'small' ? (['small', 2, 2048, 2, 4] as const) : r))],
  ['t4g', 'arm64', burstable],
  ['m5', 'amd64', nitroSizes(4096, generalX86)],
  ['m5a', 'amd64', nitroSizes(4096, generalX86)],
  ['m6i', 'amd64', nitroSizes(4096, generalX86)],
  ['m7i', 'amd64', nitroSizes(4096, generalX86)],
  ['m6g', 'arm64', nitroSizes(4096, graviton)],
  ['m7g', 'arm64', nitroSizes(4096, graviton)],
  ['c5', 'amd64', nitroSizes(2048, ['large', 'xlarge', '2xlarge', '4xlarge', '9xlarge', '12xlarge', '18xlarge', '24xlarge'])],
  ['c6i', 'amd64', nitroSizes(2048, generalX86)],
  ['c7i', 'amd64', nitroSizes(2048, generalX86)],
  ['c6g', 'arm64', nitroSizes(2048, graviton)],
  ['c7g', 'arm64', nitroSizes(2048, graviton)],
  ['r5', 'amd64', nitroSizes(8192, generalX86)],
  ['r6i', 'amd64', nitroSizes(8192, generalX86)],
  ['r6g', 'arm64', nitroSizes(8192, graviton)],
];

function buildCatalog(): ReadonlyMap<string, InstanceType> {
  const m = new Map<string, InstanceType>();
  for (const [family, arch, sizes] of families) {
    for (const [size, vcpu, memoryMiB, enis, ipv4PerEni] of sizes) {
      const name = `${family}.${size}`;
      m.set(name, { name, arch, vcpu, memoryMiB, enis, ipv4PerEni });
    }
  }
  return m;
}

/** Every instance type in the catalog, by name (`m5.large`). */
export const instanceTypes: ReadonlyMap<string, InstanceType> = buildCatalog();

export function lookupInstanceType(name: string): InstanceType | undefined {
  return instanceTypes.get(name);
}

/** Linux max pods as in eni-max-pods.txt: `ENIs * (IPv4 per ENI - 1) + 2`. */
export function linuxMaxPods(t: InstanceType): number {
  return t.enis * (t.ipv4PerEni - 1) + 2;
}

/** Windows max pods on EKS: one ENI, its IPv4 addresses minus the primary one. */
export function windowsMaxPods(t: InstanceType): number {
  return t.ipv4PerEni - 1;
}

export function eksMaxPods(t: InstanceType, os: 'linux' | 'windows'): number {
  return os === 'windows' ? windowsMaxPods(t) : linuxMaxPods(t);
}

/**
 * bootstrap.sh `get_cpu_millicores_to_reserve`: 6% of the first core, 1% of the second, 0.5% of cores 3-4,
 * 0.25% of the rest (integer arithmetic per range, as the shell does).
 */
export function eksCpuReservedMillis(vcpu: number): number {
  const total = vcpu * 1000;
  const ranges = [0, 1000, 2000, 4000, total];
  const hundredthsOfPercent = [600, 100, 50, 25];
  let reserved = 0;
  for (let i = 0; i < hundredthsOfPercent.length; i++) {
    const start = ranges[i] ?? 0;
    const end = ranges[i + 1] ?? total;
    if (total > start) reserved += Math.floor(((Math.min(total, end) - start) * (hundredthsOfPercent[i] ?? 0)) / 100 / 100);
  }
  return reserved;
}

/** bootstrap.sh `get_memory_mebibytes_to_reserve`: `11 * maxPods + 255` MiB. */
export function eksMemoryReservedMiB(maxPods: number): number {
  return 11 * maxPods + 255;
}

/** The kubelet's hard eviction threshold for memory on EKS Linux AMIs (`memory.available<100Mi`). */
export const eksEvictionHardMemoryMiB = 100;
