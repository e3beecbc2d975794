export type {
  ClusterSpec,
  EksNodeGroupInfo,
  NodeArch,
  NodeGroupSpec,
  NodeOS,
  NodeSpec,
  TaintEffect,
  TaintSpec,
} from './types.js';
export { nodeArches, nodeOSes, taintEffects } from './types.js';
export { ClusterConfigError, isClusterConfigError } from './errors.js';
export { clusterConfigApiVersions, loadClusterConfig, parseClusterConfig, readClusterConfig } from './load.js';
export {
  type NativeClusterConfig,
  type NativeNodeGroupConfig,
  type NativeTaint,
  nativeApiVersion,
  nativeDefaults,
  nativeKind,
} from './native.js';
export {
  eksctlApiVersion,
  eksctlDefaultInstanceType,
  eksctlDefaultNodeCount,
  eksctlDefaultRegion,
  eksctlDefaultVolumeSize,
  eksctlKind,
} from './eksctl.js';
export { defaultCluster, defaultClusterConfig } from './default-topology.js';
export { expandCluster, internalIPForIndex, kubeletLabels, nodeLabels, nodeObject, podCIDRForIndex } from './expand.js';
export { controlPlaneLabels, controlPlaneTaint, nodeNamesOf } from './_groups.js';
export { formatTaint } from './_validation.js';
export {
  eksCpuReservedMillis,
  eksEvictionHardMemoryMiB,
  eksMaxPods,
  eksMemoryReservedMiB,
  type InstanceArch,
  type InstanceType,
  instanceTypes,
  linuxMaxPods,
  lookupInstanceType,
  windowsMaxPods,
} from './catalog/instance-types.js';
export { type AmiFamily, type AmiType, amiFamilies, amiTypes, defaultAmiFamily } from './catalog/amis.js';
export {
  defaultContainerRuntimeVersion,
  defaultKubeletVersion,
  defaultLinuxImage,
  defaultWindowsBuild,
  type OsImage,
  windowsBuildPattern,
  windowsImage,
} from './catalog/os-images.js';
