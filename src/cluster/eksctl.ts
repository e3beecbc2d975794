/**
 * An eksctl `ClusterConfig` (`apiVersion: eksctl.io/v1alpha5`), accepted unchanged: every field of eksctl's
 * schema (`pkg/apis/eksctl.io/v1alpha5/assets/schema.json`) is accepted, and those that shape nodes take
 * effect; a field the schema does not have is reported. Node groups become kubemix node groups:
 *
 * - The AMI (`amiFamily`, or `amiType` as the EKS API names it) decides OS, Windows build, osImage and kernel;
 *   the default family is eksctl's, AmazonLinux2023. When both are given they must agree.
 * - The instance type (`instanceType`, else the first of `instanceTypes` or `instancesDistribution.instanceTypes`,
 *   default m5.large as eksctl's) decides architecture, cpu, memory and max pods as EKS computes them
 *   (catalog/instance-types.ts); `maxPodsPerNode` overrides max pods. Linux nodes get the EKS bootstrap's
 *   kube-reserved and eviction threshold as reservations.
 * - `desiredCapacity` (else `minSize`, else eksctl's default of 2) is the node count.
 * - Nodes are named `<group>-<n>`, not `ip-10-0-x-y.ec2.internal` as on EKS, so a node's name says its group.
 * - Nodes carry the labels EKS, eksctl and the AWS cloud provider set, and spread round-robin over the
 *   group's `availabilityZones`, else the cluster's, else `<region>a`, `b`, `c`.
 */
import { createHash } from 'node:crypto';
import { fieldErrors, Path } from '../api/field-errors.js';
import { checkNodeNames } from './_groups.js';
import { ConfigReader, isMap, type YamlMap } from './_validation.js';
import { type AmiFamily, amiFamilies, amiTypes, defaultAmiFamily, eksKubeletVersion } from './catalog/amis.js';
import {
  eksCpuReservedMillis,
  eksEvictionHardMemoryMiB,
  eksMaxPods,
  eksMemoryReservedMiB,
  type InstanceType,
  instanceTypes,
  lookupInstanceType,
} from './catalog/instance-types.js';
import type { ClusterSpec, NodeGroupSpec, TaintSpec } from './types.js';
import { readTaints } from './native.js';

export const eksctlApiVersion = 'eksctl.io/v1alpha5';
export const eksctlKind = 'ClusterConfig';

/** eksctl's `DefaultRegion`, used when the config names none (eksctl would ask the AWS profile). */
export const eksctlDefaultRegion = 'us-west-2';
/** eksctl's `DefaultNodeType`. */
export const eksctlDefaultInstanceType = 'm5.large';
/** eksctl's `DefaultNodeCount`. */
export const eksctlDefaultNodeCount = 2;
/** eksctl's `DefaultNodeVolumeSize` (GiB). */
export const eksctlDefaultVolumeSize = 80;

const clusterConfigFields = new Set([
  'kind',
  'apiVersion',
  'metadata',
  'upgradePolicy',
  'kubernetesNetworkConfig',
  'autoModeConfig',
  'remoteNetworkConfig',
  'iam',
  'iamIdentityMappings',
  'identityProviders',
  'accessConfig',
  'vpc',
  'addons',
  'addonsConfig',
  'privateCluster',
  'nodeGroups',
  'managedNodeGroups',
  'fargateProfiles',
  'availabilityZones',
  'localZones',
  'cloudWatch',
  'secretsEncryption',
  'status',
  'gitops',
  'karpenter',
  'outpost',
  'controlPlaneScalingConfig',
  'zonalShiftConfig',
  'capabilities',
]);

const metadataFields = new Set([
  'name',
  'region',
  'version',
  'forceUpdateVersion',
  'rollbackConfig',
  'tags',
  'annotations',
]);

/** NodeGroupBase: what self-managed and managed groups share. */
const baseGroupFields = [
  'name',
  'amiFamily',
  'instanceType',
  'availabilityZones',
  'subnets',
  'instancePrefix',
  'instanceName',
  'desiredCapacity',
  'minSize',
  'maxSize',
  'volumeSize',
  'ssh',
  'labels',
  'privateNetworking',
  'tags',
  'iam',
  'ami',
  'securityGroups',
  'maxPodsPerNode',
  'asgSuspendProcesses',
  'ebsOptimized',
  'volumeType',
  'volumeName',
  'volumeEncrypted',
  'volumeKmsKeyID',
  'volumeIOPS',
  'volumeThroughput',
  'additionalVolumes',
  'preBootstrapCommands',
  'overrideBootstrapCommand',
  'propagateASGTags',
  'disableIMDSv1',
  'disablePodIMDS',
  'placement',
  'efaEnabled',
  'instanceSelector',
  'bottlerocket',
  'enableDetailedMonitoring',
  'capacityReservation',
  'instanceMarketOptions',
  'outpostARN',
  'taints',
  'updateConfig',
  // The EKS API's name for the AMI; eksctl itself does not have it, cli.md asks for it.
  'amiType',
];

const selfManagedGroupFields = new Set([
  ...baseGroupFields,
  'instancesDistribution',
  'asgMetricsCollection',
  'cpuCredits',
  'classicLoadBalancerNames',
  'targetGroupARNs',
  'clusterDNS',
  'kubeletExtraConfig',
  'containerRuntime',
  'maxInstanceLifetime',
  'localZones',
  'enclaveEnabled',
]);

const managedGroupFields = new Set([
  ...baseGroupFields,
  'instanceTypes',
  'spot',
  'launchTemplate',
  'releaseVersion',
  'nodeRepairConfig',
]);

/** eksctl's rule for cluster and node group names (`IsInvalidNameArg`, `ErrInvalidName`). */
const eksctlNamePattern = /^[a-zA-Z][-a-zA-Z0-9]*$/;
const eksctlNameMessage = 'name must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*';

interface ClusterContext {
  readonly clusterName: string;
  readonly region: string;
  readonly zones: readonly string[];
}

/** Reads an eksctl ClusterConfig; problems go to `reader`, and the spec is returned only if there were none. */
export function readEksctlConfig(doc: YamlMap, reader: ConfigReader): ClusterSpec | undefined {
  const before = reader.problems.length;
  reader.unknownFields(doc, undefined, clusterConfigFields);
  if (doc['kind'] !== eksctlKind) {
    if (doc['kind'] === undefined) reader.add(fieldErrors.required('kind'));
    else reader.add(fieldErrors.notSupported('kind', doc['kind'], [eksctlKind]));
  }

  const metaPath = Path.root('metadata');
  const meta = reader.map(doc['metadata'], metaPath);
  let clusterName: string | undefined;
  let region = eksctlDefaultRegion;
  if (meta === undefined) {
    if (doc['metadata'] === undefined) reader.add(fieldErrors.required(metaPath.child('name')));
  } else {
    reader.unknownFields(meta, metaPath, metadataFields);
    clusterName = reader.string(meta['name'], metaPath.child('name'));
    if (clusterName === undefined && meta['name'] === undefined) reader.add(fieldErrors.required(metaPath.child('name')));
    if (clusterName === '') reader.add(fieldErrors.required(metaPath.child('name')));
    if (clusterName !== undefined && clusterName !== '') {
      if (!eksctlNamePattern.test(clusterName)) {
        reader.add(fieldErrors.invalid(metaPath.child('name'), clusterName, eksctlNameMessage));
      }
    }
    region = reader.string(meta['region'], metaPath.child('region')) ?? eksctlDefaultRegion;
    reader.string(meta['version'], metaPath.child('version'));
    reader.map(meta['tags'], metaPath.child('tags'));
  }
  const clusterZones = reader.stringList(doc['availabilityZones'], Path.root('availabilityZones'));
  const ctx: ClusterContext = {
    clusterName: clusterName ?? '',
    region,
    zones: clusterZones !== undefined && clusterZones.length > 0 ? clusterZones : ['a', 'b', 'c'].map((z) => `${region}${z}`),
  };

  const groups: { spec: NodeGroupSpec; path: Path }[] = [];
  const groupNames = new Set<string>();
  for (const [field, managed] of [
    ['nodeGroups', false],
    ['managedNodeGroups', true],
  ] as const) {
    const listPath = Path.root(field);
    const items = reader.list(doc[field], listPath) ?? [];
    items.forEach((raw, i) => {
      const path = listPath.index(i);
      const m = reader.map(raw, path);
      if (m === undefined) return;
      const spec = readEksGroup(m, path, managed, ctx, reader);
      if (spec === undefined) return;
      if (groupNames.has(spec.name)) {
        reader.add(fieldErrors.duplicate(path.child('name'), spec.name));
        return;
      }
      groupNames.add(spec.name);
      groups.push({ spec, path });
    });
  }
  if (groups.length === 0 && reader.problems.length === before) {
    reader.add(fieldErrors.required('nodeGroups', 'must have at least one node group or managed node group'));
  }
  checkNodeNames(reader, groups);
  if (reader.problems.length > before || clusterName === undefined) return undefined;
  return { name: clusterName, source: 'eksctl', nodeGroups: groups.map((g) => g.spec) };
}

function readEksGroup(
  m: YamlMap,
  path: Path,
  managed: boolean,
  ctx: ClusterContext,
  reader: ConfigReader,
): NodeGroupSpec | undefined {
  const before = reader.problems.length;
  reader.unknownFields(m, path, managed ? managedGroupFields : selfManagedGroupFields);

  const name = reader.string(m['name'], path.child('name'));
  if (name === undefined && m['name'] === undefined) reader.add(fieldErrors.required(path.child('name')));
  // eksctl's own rule (validateNodeGroupName): letters, digits and '-'; node names use the name in lower case.
  if (name !== undefined && !eksctlNamePattern.test(name)) {
    reader.add(fieldErrors.invalid(path.child('name'), name, eksctlNameMessage));
  }

  const family = readAmi(m, path, reader);
  const instanceType = readInstanceType(m, path, managed, reader);
  if (family !== undefined && instanceType !== undefined) checkArch(family, instanceType, m, path, reader);

  const desired = reader.integer(m['desiredCapacity'], path.child('desiredCapacity'), 0);
  const minSize = reader.integer(m['minSize'], path.child('minSize'), 0);
  const maxSize = reader.integer(m['maxSize'], path.child('maxSize'), 0);
  const count = desired ?? minSize ?? eksctlDefaultNodeCount;
  if (minSize !== undefined && count < minSize) {
    reader.add(fieldErrors.invalid(path.child('desiredCapacity'), count, `must be at least minSize (${minSize})`));
  }
  if (maxSize !== undefined && count > maxSize) {
    reader.add(fieldErrors.invalid(path.child('desiredCapacity'), count, `must be at most maxSize (${maxSize})`));
  }
  const maxPodsOverride = reader.integer(m['maxPodsPerNode'], path.child('maxPodsPerNode'));
  const volumeSize = reader.integer(m['volumeSize'], path.child('volumeSize')) ?? eksctlDefaultVolumeSize;
  const userLabels = reader.labels(m['labels'], path.child('labels')) ?? {};
  const taints = readEksTaints(reader, m['taints'], path.child('taints'));
  const zones = reader.stringList(m['availabilityZones'], path.child('availabilityZones'));
  const spot = managed ? (reader.bool(m['spot'], path.child('spot')) ?? false) : false;
  reader.map(m['tags'], path.child('tags'));
  reader.bool(m['privateNetworking'], path.child('privateNetworking'));

  if (reader.problems.length > before || name === undefined || family === undefined || instanceType === undefined) {
    return undefined;
  }

  const os = family.os;
  const arch = instanceType.arch;
  const maxPods = maxPodsOverride ?? eksMaxPods(instanceType, os);
  const storageBytes = volumeSize * GiB;
  // Linux: bootstrap.sh kube-reserved plus evictionHard memory.available<100Mi and nodefs.available<10%,
  // kube-reserved ephemeral-storage 1Gi. Windows: no kube-reserved; the kubelet's Windows default eviction
  // threshold memory.available<500Mi and nodefs.available<10%.
  const reserved =
    os === 'linux'
      ? {
          cpuMillis: eksCpuReservedMillis(instanceType.vcpu),
          memoryBytes: (eksMemoryReservedMiB(maxPods) + eksEvictionHardMemoryMiB) * MiB,
          ephemeralStorageBytes: GiB + Math.ceil(storageBytes / 10),
        }
      : { cpuMillis: 0, memoryBytes: 500 * MiB, ephemeralStorageBytes: Math.ceil(storageBytes / 10) };

  const amiType = family.amiType(arch);
  const labels: Record<string, string> = {
    'alpha.eksctl.io/cluster-name': ctx.clusterName,
    'alpha.eksctl.io/nodegroup-name': name,
  };
  if (managed) {
    labels['eks.amazonaws.com/capacityType'] = spot ? 'SPOT' : 'ON_DEMAND';
    labels['eks.amazonaws.com/nodegroup'] = name;
    labels['eks.amazonaws.com/nodegroup-image'] = fakeAwsId('ami', `${ctx.region}/${family.name}/${arch}`);
  }
  labels['node.kubernetes.io/instance-type'] = instanceType.name;
  labels['beta.kubernetes.io/instance-type'] = instanceType.name;
  labels['topology.kubernetes.io/region'] = ctx.region;
  labels['failure-domain.beta.kubernetes.io/region'] = ctx.region;
  Object.assign(labels, userLabels);

  return {
    name,
    count,
    ...(name !== name.toLowerCase() ? { nodeNamePrefix: name.toLowerCase() } : {}),
    os,
    arch,
    ...(family.windowsBuild !== undefined ? { windowsBuild: family.windowsBuild } : {}),
    controlPlane: false,
    cpu: instanceType.vcpu,
    memory: `${instanceType.memoryMiB}Mi`,
    maxPods,
    ephemeralStorage: `${volumeSize}Gi`,
    reserved,
    labels,
    taints,
    osImage: family.osImage,
    kernelVersion: family.kernelVersion(arch),
    containerRuntimeVersion: family.containerRuntimeVersion,
    kubeletVersion: eksKubeletVersion,
    instanceType: instanceType.name,
    eks: {
      clusterName: ctx.clusterName,
      region: ctx.region,
      zones: zones !== undefined && zones.length > 0 ? zones : ctx.zones,
      managed,
      amiFamily: family.name,
      amiType,
      capacityType: spot ? 'SPOT' : 'ON_DEMAND',
    },
  };
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

function readAmi(m: YamlMap, path: Path, reader: ConfigReader): AmiFamily | undefined {
  const familyName = reader.string(m['amiFamily'], path.child('amiFamily'));
  const typeName = reader.string(m['amiType'], path.child('amiType'));
  let family: AmiFamily | undefined;
  if (familyName !== undefined) {
    family = amiFamilies.get(familyName);
    if (family === undefined) reader.add(fieldErrors.notSupported(path.child('amiFamily'), familyName, [...amiFamilies.keys()]));
  }
  if (typeName !== undefined && typeName !== 'CUSTOM') {
    const t = amiTypes.get(typeName);
    if (t === undefined) {
      reader.add(fieldErrors.notSupported(path.child('amiType'), typeName, [...amiTypes.keys(), 'CUSTOM']));
      return undefined;
    }
    if (familyName === undefined) return amiFamilies.get(t.family);
    if (family !== undefined && family.name !== t.family) {
      reader.add(fieldErrors.invalid(path.child('amiType'), typeName, `does not match amiFamily "${family.name}"`));
      return undefined;
    }
  } else if (typeName === 'CUSTOM' && familyName === undefined) {
    reader.add(fieldErrors.required(path.child('amiFamily'), 'amiType "CUSTOM" needs an amiFamily to tell the OS'));
    return undefined;
  }
  if (familyName === undefined) return amiFamilies.get(defaultAmiFamily);
  return family;
}

function readInstanceType(m: YamlMap, path: Path, managed: boolean, reader: ConfigReader): InstanceType | undefined {
  const candidates: { name: string; path: Path }[] = [];
  const single = reader.string(m['instanceType'], path.child('instanceType'));
  if (single !== undefined) candidates.push({ name: single, path: path.child('instanceType') });
  if (managed) {
    reader.stringList(m['instanceTypes'], path.child('instanceTypes'))?.forEach((n, i) =>
      candidates.push({ name: n, path: path.child('instanceTypes').index(i) }),
    );
  } else {
    const distPath = path.child('instancesDistribution');
    const dist = reader.map(m['instancesDistribution'], distPath);
    if (dist !== undefined) {
      reader.stringList(dist['instanceTypes'], distPath.child('instanceTypes'))?.forEach((n, i) =>
        candidates.push({ name: n, path: distPath.child('instanceTypes').index(i) }),
      );
    }
  }
  if (candidates.length === 0) candidates.push({ name: eksctlDefaultInstanceType, path: path.child('instanceType') });
  let first: InstanceType | undefined;
  let ok = true;
  for (const c of candidates) {
    const t = lookupInstanceType(c.name);
    if (t === undefined) {
      reader.add(fieldErrors.invalid(c.path, c.name, `unknown instance type (kubemix knows the families ${knownFamilies()})`));
      ok = false;
      continue;
    }
    if (first === undefined) first = t;
    else if (t.arch !== first.arch) {
      reader.add(fieldErrors.invalid(c.path, c.name, `is ${t.arch}, but ${first.name} is ${first.arch}: a group has one architecture`));
      ok = false;
    }
  }
  return ok ? first : undefined;
}

function knownFamilies(): string {
  const families: string[] = [];
  for (const name of instanceTypes.keys()) {
    const f = name.slice(0, name.indexOf('.'));
    if (!families.includes(f)) families.push(f);
  }
  return families.join(', ');
}

function checkArch(family: AmiFamily, t: InstanceType, m: YamlMap, path: Path, reader: ConfigReader): void {
  const at = m['instanceType'] !== undefined ? path.child('instanceType') : path.child(m['instanceTypes'] !== undefined ? 'instanceTypes' : 'instanceType');
  if (!family.archs.includes(t.arch)) {
    reader.add(
      fieldErrors.invalid(at, t.name, `is ${t.arch}, but amiFamily ${family.name} runs on ${family.archs.join(', ')} instance types only`),
    );
    return;
  }
  const typeName = m['amiType'];
  if (typeof typeName === 'string') {
    const amiType = amiTypes.get(typeName);
    if (amiType !== undefined && amiType.arch !== t.arch) {
      reader.add(fieldErrors.invalid(at, t.name, `is ${t.arch}, but amiType ${amiType.name} is for ${amiType.arch} instance types`));
    }
  }
}

/** eksctl taints: a map `key: "value:Effect"` (self-managed groups' short form) or a list of `{key, value, effect}`. */
function readEksTaints(reader: ConfigReader, v: unknown, path: Path): TaintSpec[] {
  if (!isMap(v)) return readTaints(reader, v, path);
  const parsed = Object.entries(v).map(([key, raw]) => {
    const at = path.key(key);
    const s = reader.string(raw, at);
    if (s === undefined) return undefined;
    const colon = s.lastIndexOf(':');
    if (colon < 0) {
      reader.add(fieldErrors.invalid(at, s, 'must be of the form value:Effect or :Effect'));
      return undefined;
    }
    return reader.taint(key, s.slice(0, colon), s.slice(colon + 1), at);
  });
  return reader.uniqueTaints(parsed, path);
}

/** A stable AWS-style id (`ami-0123...`, `i-0123...`: 17 hex digits) derived from `seed`. */
export function fakeAwsId(prefix: string, seed: string): string {
  return `${prefix}-0${createHash('sha256').update(seed).digest('hex').slice(0, 16)}`;
}
