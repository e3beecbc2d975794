/**
 * EKS AMI families (eksctl `amiFamily`) and EKS AMI types (`amiType` of the EKS CreateNodegroup API): which OS,
 * architectures and Windows build each gives, and what its nodes report in `status.nodeInfo`.
 *
 * Family names are eksctl's (`pkg/apis/eksctl.io/v1alpha5` `NodeImageFamily*`, schema enum of `amiFamily`);
 * AMI types are the EKS API's `AMITypes` enum. Versions are those of early-2025 EKS-optimized AMIs for 1.32.
 */
import { defaultContainerRuntimeVersion } from './os-images.js';
import type { InstanceArch } from './instance-types.js';

export interface AmiFamily {
  readonly name: string;
  readonly os: 'linux' | 'windows';
  readonly archs: readonly InstanceArch[];
  /** `10.0.<build>` for Windows families. */
  readonly windowsBuild?: string;
  readonly osImage: string;
  kernelVersion(arch: InstanceArch): string;
  readonly containerRuntimeVersion: string;
  /** The EKS AMI type a managed node group of this family and architecture uses. */
  amiType(arch: InstanceArch): string;
}

const uname = (arch: InstanceArch): string => (arch === 'arm64' ? 'aarch64' : 'x86_64');
const amiArch = (arch: InstanceArch): string => (arch === 'arm64' ? 'ARM_64' : 'x86_64');

function linux(
  name: string,
  osImage: string,
  kernel: (arch: InstanceArch) => string,
  amiType: (arch: InstanceArch) => string,
  containerRuntimeVersion = defaultContainerRuntimeVersion,
): AmiFamily {
  return { name, os: 'linux', archs: ['amd64', 'arm64'], osImage, kernelVersion: kernel, containerRuntimeVersion, amiType };
}

function windows(name: string, year: '2019' | '2022' | '2025', build: string, ubr: number, edition: 'CORE' | 'FULL'): AmiFamily {
  return {
    name,
    os: 'windows',
    archs: ['amd64'],
    windowsBuild: build,
    osImage: `Windows Server ${year} Datacenter`,
    kernelVersion: () => `${build}.${ubr}`,
    containerRuntimeVersion: 'containerd://1.7.20',
    amiType: () => `WINDOWS_${edition}_${year}_x86_64`,
  };
}

const al2Kernel = (arch: InstanceArch): string => `5.10.234-225.895.amzn2.${uname(arch)}`;
const al2023Kernel = (arch: InstanceArch): string => `6.1.128-136.201.amzn2023.${uname(arch)}`;
const bottlerocketKernel = (): string => '6.1.128';
const ubuntu2004Kernel = (): string => '5.15.0-1075-aws';
const ubuntu2204Kernel = (): string => '6.8.0-1021-aws';
const ubuntu2404Kernel = (): string => '6.8.0-1021-aws';
const ubuntu2604Kernel = (): string => '6.17.0-1004-aws';
const customAmiType = (): string => 'CUSTOM';

const familyList: readonly AmiFamily[] = [
  linux('AmazonLinux2023', 'Amazon Linux 2023.6.20250203', al2023Kernel, (a) => `AL2023_${amiArch(a)}_STANDARD`),
  linux('AmazonLinux2', 'Amazon Linux 2', al2Kernel, (a) => `AL2_${amiArch(a)}`),
  linux('UbuntuPro2604', 'Ubuntu 26.04 LTS', ubuntu2604Kernel, customAmiType),
  linux('Ubuntu2604', 'Ubuntu 26.04 LTS', ubuntu2604Kernel, customAmiType),
  linux('UbuntuPro2404', 'Ubuntu 24.04.1 LTS', ubuntu2404Kernel, customAmiType),
  linux('Ubuntu2404', 'Ubuntu 24.04.1 LTS', ubuntu2404Kernel, customAmiType),
  linux('UbuntuPro2204', 'Ubuntu 22.04.5 LTS', ubuntu2204Kernel, customAmiType),
  linux('Ubuntu2204', 'Ubuntu 22.04.5 LTS', ubuntu2204Kernel, customAmiType),
  linux('UbuntuPro2004', 'Ubuntu 20.04.6 LTS', ubuntu2004Kernel, customAmiType),
  linux('Ubuntu2004', 'Ubuntu 20.04.6 LTS', ubuntu2004Kernel, customAmiType),
  linux(
    'Bottlerocket',
    'Bottlerocket OS 1.32.0 (aws-k8s-1.32)',
    bottlerocketKernel,
    (a) => `BOTTLEROCKET_${amiArch(a)}`,
    'containerd://1.7.25+bottlerocket',
  ),
  linux(
    'BottlerocketFips',
    'Bottlerocket (FIPS) OS 1.32.0 (aws-k8s-1.32)',
    bottlerocketKernel,
    (a) => `BOTTLEROCKET_${amiArch(a)}_FIPS`,
    'containerd://1.7.25+bottlerocket',
  ),
  windows('WindowsServer2019CoreContainer', '2019', '10.0.17763', 6532, 'CORE'),
  windows('WindowsServer2019FullContainer', '2019', '10.0.17763', 6532, 'FULL'),
  windows('WindowsServer2022CoreContainer', '2022', '10.0.20348', 2849, 'CORE'),
  windows('WindowsServer2022FullContainer', '2022', '10.0.20348', 2849, 'FULL'),
  windows('WindowsServer2025CoreContainer', '2025', '10.0.26100', 2314, 'CORE'),
  windows('WindowsServer2025FullContainer', '2025', '10.0.26100', 2314, 'FULL'),
];

/**
 * The kubelet version EKS-optimized AMIs for 1.32 report: EKS builds carry an `-eks-<commit>` suffix (the
 * commit here is illustrative of the form, not a specific release).
 */
export const eksKubeletVersion = 'v1.32.0-eks-5d632ec';

/** Every AMI family eksctl accepts, in eksctl's schema order. */
export const amiFamilies: ReadonlyMap<string, AmiFamily> = new Map(familyList.map((f) => [f.name, f]));

/** eksctl's default `amiFamily` (schema default since eksctl 0.200). */
export const defaultAmiFamily = 'AmazonLinux2023';

export interface AmiType {
  readonly name: string;
  /** The family whose images this type runs. */
  readonly family: string;
  readonly arch: InstanceArch;
}

const amiTypeList: readonly AmiType[] = [
  { name: 'AL2_x86_64', family: 'AmazonLinux2', arch: 'amd64' },
  { name: 'AL2_x86_64_GPU', family: 'AmazonLinux2', arch: 'amd64' },
  { name: 'AL2_ARM_64', family: 'AmazonLinux2', arch: 'arm64' },
  { name: 'AL2023_x86_64_STANDARD', family: 'AmazonLinux2023', arch: 'amd64' },
  { name: 'AL2023_ARM_64_STANDARD', family: 'AmazonLinux2023', arch: 'arm64' },
  { name: 'AL2023_x86_64_NEURON', family: 'AmazonLinux2023', arch: 'amd64' },
  { name: 'AL2023_x86_64_NVIDIA', family: 'AmazonLinux2023', arch: 'amd64' },
  { name: 'AL2023_ARM_64_NVIDIA', family: 'AmazonLinux2023', arch: 'arm64' },
  { name: 'BOTTLEROCKET_x86_64', family: 'Bottlerocket', arch: 'amd64' },
  { name: 'BOTTLEROCKET_ARM_64', family: 'Bottlerocket', arch: 'arm64' },
  { name: 'BOTTLEROCKET_x86_64_NVIDIA', family: 'Bottlerocket', arch: 'amd64' },
  { name: 'BOTTLEROCKET_ARM_64_NVIDIA', family: 'Bottlerocket', arch: 'arm64' },
  { name: 'BOTTLEROCKET_x86_64_FIPS', family: 'BottlerocketFips', arch: 'amd64' },
  { name: 'BOTTLEROCKET_ARM_64_FIPS', family: 'BottlerocketFips', arch: 'arm64' },
  { name: 'WINDOWS_CORE_2019_x86_64', family: 'WindowsServer2019CoreContainer', arch: 'amd64' },
  { name: 'WINDOWS_FULL_2019_x86_64', family: 'WindowsServer2019FullContainer', arch: 'amd64' },
  { name: 'WINDOWS_CORE_2022_x86_64', family: 'WindowsServer2022CoreContainer', arch: 'amd64' },
  { name: 'WINDOWS_FULL_2022_x86_64', family: 'WindowsServer2022FullContainer', arch: 'amd64' },
  { name: 'WINDOWS_CORE_2025_x86_64', family: 'WindowsServer2025CoreContainer', arch: 'amd64' },
  { name: 'WINDOWS_FULL_2025_x86_64', family: 'WindowsServer2025FullContainer', arch: 'amd64' },
];

/** EKS AMI types kubemix can simulate (`CUSTOM` is not one: it says nothing about the OS). */
export const amiTypes: ReadonlyMap<string, AmiType> = new Map(amiTypeList.map((t) => [t.name, t]));
