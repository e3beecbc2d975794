/**
 * Cluster configs for `kubemix up` and `kubemix check` (spec/cli.md, "Cluster config"):
 *
 * - `loadClusterConfig(path)` / `parseClusterConfig(text, fileName)` read a native (`kubemix.dev/v1alpha1`
 *   Cluster) or eksctl (`eksctl.io/v1alpha5` ClusterConfig) file, YAML or JSON, into a `ClusterSpec`, or throw
 *   `ClusterConfigError` listing every problem as `<file>: <field path>: <what is wrong>`, one per line.
 * - `defaultCluster()` is the topology `kubemix up` starts without `--config`; `defaultClusterConfig()` is the
 *   same written as a native config.
 * - `expandCluster(spec)` gives one `NodeSpec` per node (name, OS, arch, build, images, capacity,
 *   allocatable, labels, taints, InternalIP, pod CIDR, provider ID); `nodeLabels(node)` adds the kubelet's
 *   own labels, and `nodeObject(node)` builds the Node a kubelet registers (without conditions).
 * - The catalogs: EC2 instance types with EKS max pods and reservations, EKS AMI families and AMI types,
 *   OS images of Windows builds.
 */
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
export { type AmiFamily, type AmiType, amiFamilies, amiTypes, defaultAmiFamily, eksKubeletVersion } from './catalog/amis.js';
export {
  defaultContainerRuntimeVersion,
  defaultKubeletVersion,
  defaultLinuxImage,
  defaultWindowsBuild,
  type OsImage,
  windowsBuildPattern,
  windowsImage,
} from './catalog/os-images.js';
