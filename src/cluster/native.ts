/**
 * The native cluster config (`apiVersion: kubemix.dev/v1alpha1`, `kind: Cluster`), as specified in
 * spec/cli.md: node groups with `name`, `count` or `names`, `os`, `arch`, `windowsBuild`, `controlPlane`,
 * `cpu`, `memory`, `maxPods`, `labels`, `taints`. cpu, memory and maxPods are capacity and allocatable alike.
 *
 * Choices beyond cli.md:
 * - `count` defaults to the number of `names`, else 1; `os` to linux, `arch` to amd64.
 * - A Windows group without `windowsBuild` gets 10.0.20348 (Windows Server 2022); Windows groups must be amd64.
 * - `cpu` defaults to 4, `memory` to 16Gi, `maxPods` to 110, `ephemeralStorage` to 100Gi.
 * - `osImage`, `kernelVersion` and `containerRuntimeVersion` override what the OS and build imply.
 * - `instanceType` (an EC2 type from the catalog) supplies cpu and memory when not given, must agree with
 *   `arch`, and adds the `node.kubernetes.io/instance-type` labels.
 */
import { fieldErrors, Path } from '../api/field-errors.js';
import { formatQuantity, parseQuantity } from '../api/quantity.js';
import { checkNodeNames, controlPlaneLabels, controlPlaneTaint } from './_groups.js';
import { ConfigReader, isDNS1123Label, isDNS1123Subdomain, isMap, type YamlMap } from './_validation.js';
import { lookupInstanceType } from './catalog/instance-types.js';
import {
  defaultKubeletVersion,
  defaultLinuxImage,
  defaultWindowsBuild,
  windowsBuildPattern,
  windowsImage,
} from './catalog/os-images.js';
import {
  type ClusterSpec,
  type NodeArch,
  nodeArches,
  type NodeGroupSpec,
  type NodeOS,
  nodeOSes,
  type TaintEffect,
  type TaintSpec,
} from './types.js';

export const nativeApiVersion = 'kubemix.dev/v1alpha1';
export const nativeKind = 'Cluster';

/** A taint as the native format writes it. */
export type NativeTaint = string | { key: string; value?: string; effect: TaintEffect };

/** One node group as written in a native config. */
export interface NativeNodeGroupConfig {
  name: string;
  count?: number;
  names?: string[];
  os?: NodeOS;
  arch?: NodeArch;
  windowsBuild?: string;
  controlPlane?: boolean;
  cpu?: number | string;
  memory?: string | number;
  maxPods?: number;
  ephemeralStorage?: string | number;
  labels?: Record<string, string>;
  taints?: NativeTaint[];
  osImage?: string;
  kernelVersion?: string;
  containerRuntimeVersion?: string;
  instanceType?: string;
}

/** A native config document. */
export interface NativeClusterConfig {
  apiVersion: typeof nativeApiVersion;
  kind: typeof nativeKind;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  nodeGroups: NativeNodeGroupConfig[];
}

export const nativeDefaults = {
  cpu: 4,
  memory: '16Gi',
  maxPods: 110,
  ephemeralStorage: '100Gi',
} as const;

const topFields = new Set(['apiVersion', 'kind', 'metadata', 'nodeGroups']);
const metadataFields = new Set(['name', 'labels', 'annotations']);
const groupFields = new Set([
  'name',
  'count',
  'names',
  'os',
  'arch',
  'windowsBuild',
  'controlPlane',
  'cpu',
  'memory',
  'maxPods',
  'ephemeralStorage',
  'labels',
  'taints',
  'osImage',
  'kernelVersion',
  'containerRuntimeVersion',
  'instanceType',
]);

/** Reads a native config document; problems go to `reader`, and the spec is returned only if there were none. */
export function readNativeConfig(doc: YamlMap, reader: ConfigReader): ClusterSpec | undefined {
  const before = reader.problems.length;
  reader.unknownFields(doc, undefined, topFields);
  if (doc['kind'] !== nativeKind) {
    if (doc['kind'] === undefined) reader.add(fieldErrors.required('kind'));
    else reader.add(fieldErrors.notSupported('kind', doc['kind'], [nativeKind]));
  }
  const name = readMetadataName(doc, reader);

  const groupsPath = Path.root('nodeGroups');
  const rawGroups = reader.list(doc['nodeGroups'], groupsPath);
  if (rawGroups === undefined && doc['nodeGroups'] === undefined) {
    reader.add(fieldErrors.required(groupsPath, 'must have at least one node group'));
  } else if (rawGroups !== undefined && rawGroups.length === 0) {
    reader.add(fieldErrors.required(groupsPath, 'must have at least one node group'));
  }
  const groups: { spec: NodeGroupSpec; path: Path }[] = [];
  const groupNames = new Set<string>();
  (rawGroups ?? []).forEach((raw, i) => {
    const path = groupsPath.index(i);
    const m = reader.map(raw, path);
    if (m === undefined) {
      if (raw === null) reader.add(fieldErrors.required(path));
      return;
    }
    const spec = readGroup(m, path, reader);
    if (spec === undefined) return;
    if (groupNames.has(spec.name)) {
      reader.add(fieldErrors.duplicate(path.child('name'), spec.name));
      return;
    }
    groupNames.add(spec.name);
    groups.push({ spec, path });
  });
  checkNodeNames(reader, groups);
  if (reader.problems.length > before || name === undefined) return undefined;
  return { name, source: 'native', nodeGroups: groups.map((g) => g.spec) };
}

function readMetadataName(doc: YamlMap, reader: ConfigReader): string | undefined {
  const path = Path.root('metadata');
  const meta = reader.map(doc['metadata'], path);
  if (meta === undefined) {
    if (doc['metadata'] === undefined) reader.add(fieldErrors.required(path.child('name')));
    return undefined;
  }
  reader.unknownFields(meta, path, metadataFields);
  reader.labels(meta['labels'], path.child('labels'));
  reader.map(meta['annotations'], path.child('annotations'));
  const name = reader.string(meta['name'], path.child('name'));
  if (name === undefined) {
    if (meta['name'] === undefined) reader.add(fieldErrors.required(path.child('name')));
    return undefined;
  }
  if (name === '') {
    reader.add(fieldErrors.required(path.child('name')));
    return undefined;
  }
  const errs = isDNS1123Subdomain(name);
  for (const msg of errs) reader.add(fieldErrors.invalid(path.child('name'), name, msg));
  return errs.length === 0 ? name : undefined;
}

function readGroup(m: YamlMap, path: Path, reader: ConfigReader): NodeGroupSpec | undefined {
  const before = reader.problems.length;
  reader.unknownFields(m, path, groupFields);

  const name = reader.string(m['name'], path.child('name'));
  if (name === undefined && m['name'] === undefined) reader.add(fieldErrors.required(path.child('name')));
  if (name !== undefined) for (const msg of isDNS1123Label(name)) reader.add(fieldErrors.invalid(path.child('name'), name, msg));

  const names = reader.stringList(m['names'], path.child('names'));
  names?.forEach((n, i) => {
    for (const msg of isDNS1123Subdomain(n)) reader.add(fieldErrors.invalid(path.child('names').index(i), n, msg));
  });
  const count = reader.integer(m['count'], path.child('count'));
  if (names !== undefined && count !== undefined && names.length !== count) {
    reader.add(fieldErrors.invalid(path.child('names'), names, `must have exactly count (${count}) names`));
  }
  if (names !== undefined && names.length === 0 && m['count'] === undefined) {
    reader.add(fieldErrors.required(path.child('names'), 'must have at least one name'));
  }

  // An invalid os or arch is reported once; the checks that depend on it then assume the default.
  const osGiven = readEnum(reader, m['os'], path.child('os'), nodeOSes);
  const osValid = osGiven !== undefined || m['os'] === undefined || m['os'] === null;
  const os = osGiven ?? 'linux';
  const arch = readEnum(reader, m['arch'], path.child('arch'), nodeArches) ?? 'amd64';
  if (os === 'windows' && arch === 'arm64') {
    reader.add(fieldErrors.invalid(path.child('arch'), arch, 'Windows nodes must be amd64'));
  }
  let windowsBuild = reader.string(m['windowsBuild'], path.child('windowsBuild'));
  if (windowsBuild !== undefined) {
    if (os !== 'windows') {
      if (osValid) reader.add(fieldErrors.forbidden(path.child('windowsBuild'), 'may only be set when os is "windows"'));
    } else if (!windowsBuildPattern.test(windowsBuild)) {
      reader.add(fieldErrors.invalid(path.child('windowsBuild'), windowsBuild, 'must be 10.0.<build>, e.g. "10.0.17763"'));
    }
  }
  if (os === 'windows') windowsBuild ??= defaultWindowsBuild;

  const controlPlane = reader.bool(m['controlPlane'], path.child('controlPlane')) ?? false;
  const instanceTypeName = reader.string(m['instanceType'], path.child('instanceType'));
  const instanceType = instanceTypeName === undefined ? undefined : lookupInstanceType(instanceTypeName);
  if (instanceTypeName !== undefined) {
    if (instanceType === undefined) {
      reader.add(fieldErrors.invalid(path.child('instanceType'), instanceTypeName, 'unknown instance type'));
    } else if (instanceType.arch !== arch) {
      reader.add(
        fieldErrors.invalid(path.child('instanceType'), instanceTypeName, `is ${instanceType.arch}, but arch is ${arch}`),
      );
    }
  }

  const cpuNanos = reader.quantity(m['cpu'], path.child('cpu'));
  const memoryNanos = reader.quantity(m['memory'], path.child('memory'));
  const storageNanos = reader.quantity(m['ephemeralStorage'], path.child('ephemeralStorage'));
  const maxPods = reader.integer(m['maxPods'], path.child('maxPods')) ?? nativeDefaults.maxPods;
  const cpu = cpuNanos !== undefined ? Number(cpuNanos) / 1e9 : (instanceType?.vcpu ?? nativeDefaults.cpu);
  const memory =
    memoryNanos !== undefined
      ? quantityText(m['memory'])
      : instanceType !== undefined
        ? `${instanceType.memoryMiB}Mi`
        : nativeDefaults.memory;
  const ephemeralStorage = storageNanos !== undefined ? quantityText(m['ephemeralStorage']) : nativeDefaults.ephemeralStorage;

  const labels: Record<string, string> = { ...(reader.labels(m['labels'], path.child('labels')) ?? {}) };
  if (instanceType !== undefined) {
    labels['node.kubernetes.io/instance-type'] = instanceType.name;
    labels['beta.kubernetes.io/instance-type'] = instanceType.name;
  }
  const taints = readTaints(reader, m['taints'], path.child('taints'));
  if (controlPlane) {
    Object.assign(labels, controlPlaneLabels);
    if (!taints.some((t) => t.key === controlPlaneTaint.key && t.effect === controlPlaneTaint.effect)) {
      taints.unshift(controlPlaneTaint);
    }
  }

  const image = os === 'windows' ? windowsImage(windowsBuild ?? defaultWindowsBuild) : defaultLinuxImage;
  const osImage = reader.string(m['osImage'], path.child('osImage')) ?? image.osImage;
  const kernelVersion = reader.string(m['kernelVersion'], path.child('kernelVersion')) ?? image.kernelVersion;
  const containerRuntimeVersion =
    reader.string(m['containerRuntimeVersion'], path.child('containerRuntimeVersion')) ?? image.containerRuntimeVersion;

  if (reader.problems.length > before || name === undefined) return undefined;
  return {
    name,
    count: count ?? names?.length ?? 1,
    ...(names !== undefined ? { names } : {}),
    os,
    arch,
    ...(windowsBuild !== undefined ? { windowsBuild } : {}),
    controlPlane,
    cpu,
    memory,
    maxPods,
    ephemeralStorage,
    reserved: { cpuMillis: 0, memoryBytes: 0, ephemeralStorageBytes: 0 },
    labels,
    taints,
    osImage,
    kernelVersion,
    containerRuntimeVersion,
    kubeletVersion: defaultKubeletVersion,
    ...(instanceType !== undefined ? { instanceType: instanceType.name } : {}),
  };
}

function readEnum<T extends string>(reader: ConfigReader, v: unknown, path: Path, allowed: readonly T[]): T | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  reader.add(fieldErrors.notSupported(path, v, allowed));
  return undefined;
}

/** The canonical text of a quantity already checked by `ConfigReader.quantity`; plain numbers are bytes or cores. */
function quantityText(v: unknown): string {
  const q = parseQuantity(typeof v === 'number' ? String(v) : String(v));
  return formatQuantity(q);
}

/** Taints in the native form: a list of `key=value:Effect` strings and `{key, value, effect}` objects. */
export function readTaints(reader: ConfigReader, v: unknown, path: Path): TaintSpec[] {
  const items = reader.list(v, path);
  if (items === undefined) return [];
  const parsed = items.map((item, i) => {
    const at = path.index(i);
    if (typeof item === 'string') return reader.taintString(item, at);
    if (isMap(item)) return reader.taintObject(item, at);
    reader.add(fieldErrors.invalid(at, item, 'must be a key=value:Effect string or a {key, value, effect} object'));
    return undefined;
  });
  return reader.uniqueTaints(parsed, path);
}
