/**
 * In-process scheduler benchmark (in the spirit of scheduler_perf's SchedulingBasic): 5,000 nodes of
 * mixed OS/architecture, 1,000 pods already placed, then 10,000 measured pods through the scheduling
 * algorithm and the cache with assume (no API server, no kubelets). Reports bound pods per second.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { Selector } from '../api/labels.js';
import { Cache } from './cache/cache.js';
import type { SpreadingSelectorSource } from './framework/interfaces.js';
import { defaultProfile } from './framework/profile.js';
import { Framework } from './framework/runtime.js';
import { newInTreeRegistry } from './plugins/registry.js';
import { SchedulingAlgorithm } from './schedule-one.js';

export type BenchVariant = 'SchedulingBasic' | 'NodeAffinityAndTaints' | 'UnschedulableHeavy' | 'ClusterMix' | 'ClusterMixManyWorkloads';

export const benchVariants: readonly BenchVariant[] = ['SchedulingBasic', 'NodeAffinityAndTaints', 'UnschedulableHeavy', 'ClusterMix', 'ClusterMixManyWorkloads'];

/**
 * The workloads of `ClusterMixManyWorkloads`, taking turns as the scale benchmark's 152 Deployments do in
 * the queue: PodTopologySpread then asks a few hundred questions in turn (ClusterMix asks a few dozen).
 */
const manyWorkloads = 25;

export interface BenchOptions {
  nodes?: number;
  initialPods?: number;
  measuredPods?: number;
  variants?: BenchVariant[];
  /** Seeded randomness for reproducible placements. */
  seed?: number;
}

export interface BenchResult {
  variant: BenchVariant;
  nodes: number;
  measuredPods: number;
  bound: number;
  unschedulable: number;
  seconds: number;
  /** Bound pods per second. */
  podsPerSecond: number;
  /** Scheduling attempts (bound + unschedulable) per second. */
  attemptsPerSecond: number;
  /** User+system CPU seconds of this process for the measured pods (robust when the machine is shared). */
  cpuSeconds: number;
  /** Bound pods per CPU second. */
  podsPerCpuSecond: number;
  /** sha256 prefix of the measured pods' placements in order (equal placements, equal hash). */
  placementsHash: string;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/** 60% linux/amd64, 20% linux/arm64, 10% Windows Server 2019, 10% Windows Server 2022 (tainted). */
export function benchNodes(n: number): Node[] {
  const out: Node[] = [];
  for (let i = 0; i < n; i++) {
    const slot = i % 10;
    const kind = slot < 6 ? 'amd64' : slot < 8 ? 'arm64' : slot === 8 ? 'win2019' : 'win2022';
    const name = `node-${kind}-${i}`;
    const windows = kind === 'win2019' || kind === 'win2022';
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': windows ? 'windows' : 'linux',
      'kubernetes.io/arch': kind === 'arm64' ? 'arm64' : 'amd64',
      'topology.kubernetes.io/region': 'us-east-1',
      'topology.kubernetes.io/zone': zones[i % zones.length] ?? 'us-east-1a',
      'node.kubernetes.io/instance-type': i % 3 === 0 ? 'm5.4xlarge' : 'm5.2xlarge',
    };
    if (kind === 'win2019') labels['node.kubernetes.io/windows-build'] = '10.0.17763';
    if (kind === 'win2022') labels['node.kubernetes.io/windows-build'] = '10.0.20348';
    const cpu = i % 3 === 0 ? '16' : '8';
    const memory = i % 3 === 0 ? '64Gi' : '32Gi';
    out.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
      spec: windows ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } : {},
      status: { allocatable: { cpu, memory, pods: '110', 'ephemeral-storage': '100Gi' }, capacity: { cpu, memory, pods: '110' } },
    });
  }
  return out;
}

function basePod(name: string, cpu: string, memory: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', uid: `uid-${name}`, labels: { app: name.slice(0, name.lastIndexOf('-')) } },
    spec: { schedulerName: 'default-scheduler', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu, memory } } }] },
  };
}

/** The measured pods of a variant. */
export function benchPods(variant: BenchVariant, n: number, offset = 0): Pod[] {
  const out: Pod[] = [];
  for (let j = 0; j < n; j++) {
    const i = j + offset;
    const p = basePod(`pod-${variant}-${i}`, '100m', '128Mi');
    const spec = p.spec as NonNullable<Pod['spec']>;
    if (variant === 'NodeAffinityAndTaints') {
      const slot = i % 10;
      if (slot < 6) {
        spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } };
      } else if (slot < 8) {
        spec.nodeSelector = { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' };
        spec.tolerations = [{ key: 'example.com/spot', operator: 'Exists', effect: 'NoSchedule' }];
      } else {
        spec.nodeSelector = { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': slot === 8 ? '10.0.17763' : '10.0.20348' };
        spec.tolerations = [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }];
      }
    } else if (variant === 'UnschedulableHeavy') {
      const slot = i % 3;
      if (slot === 0) spec.nodeSelector = { 'kubernetes.io/os': 'plan9' };
      else if (slot === 1 && spec.containers[0] !== undefined) spec.containers[0].resources = { requests: { cpu: '64', memory: '128Mi' } };
    }
    out.push(p);
  }
  return out;
}

/**
 * The scale benchmark's (bench/bench.ts) node mix: 8 CPU / 32Gi / 110 pods, 60% linux/amd64, 20%
 * linux/arm64, 10% each Windows build tainted os=windows:NoSchedule, spread over three zones.
 */
export function clusterMixNodes(n: number): Node[] {
  const out: Node[] = [];
  for (let i = 0; i < n; i++) {
    const slot = i % 10;
    const kind = slot < 6 ? 'linux-amd64' : slot < 8 ? 'linux-arm64' : slot === 8 ? 'windows-2019' : 'windows-2022';
    const name = `${kind}-${i}`;
    const windows = slot >= 8;
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': windows ? 'windows' : 'linux',
      'kubernetes.io/arch': kind === 'linux-arm64' ? 'arm64' : 'amd64',
      'topology.kubernetes.io/zone': `zone-${'abc'[Math.trunc(i / 10) % 3] ?? 'a'}`,
    };
    if (windows) labels['node.kubernetes.io/windows-build'] = slot === 8 ? '10.0.17763' : '10.0.20348';
    out.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
      spec: windows ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } : {},
      status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, capacity: { cpu: '8', memory: '32Gi', pods: '110' } },
    });
  }
  return out;
}

const clusterMixKinds = ['none', 'none', 'none', 'linux', 'linux', 'spread', 'arm64', 'spread', 'linux', 'windows-2019', 'none', 'none', 'none', 'linux', 'linux', 'spread', 'arm64', 'spread', 'linux', 'windows-2022', 'arm64'] as const;

/**
 * The scale benchmark's pods as the scheduler sees them (after RuntimeClass admission): 30% none, 25%
 * linux nodeSelector, 10% Windows (nodeSelector + toleration), 15% arm64 required node affinity, 20%
 * zone spread (maxSkew 1, DoNotSchedule) with a linux nodeSelector; each owned by a ReplicaSet of its kind
 * (`app` label), so every pod also gets the system default spreading.
 */
export function clusterMixPods(n: number, offset = 0, workloadsPerKind?: number): Pod[] {
  const out: Pod[] = [];
  for (let j = 0; j < n; j++) {
    const i = j + offset;
    const c = clusterMixKinds[i % clusterMixKinds.length] ?? 'none';
    // Consecutive pods of one workload, or (with workloadsPerKind) workloads in turn.
    const app = `${c}-${workloadsPerKind === undefined ? Math.trunc(i / 5000) : i % workloadsPerKind}`;
    const name = `${app}-${i}`;
    const spec: NonNullable<Pod['spec']> = {
      schedulerName: 'default-scheduler',
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
    };
    if (c === 'linux') spec.nodeSelector = { 'kubernetes.io/os': 'linux' };
    else if (c === 'windows-2019' || c === 'windows-2022') {
      spec.runtimeClassName = c;
      spec.nodeSelector = { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': c === 'windows-2019' ? '10.0.17763' : '10.0.20348' };
      spec.tolerations = [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }];
    } else if (c === 'arm64') {
      spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }] } } };
    } else if (c === 'spread') {
      spec.nodeSelector = { 'kubernetes.io/os': 'linux' };
      spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
    }
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'bench',
        uid: `uid-${name}`,
        labels: { app, bench: 'true', 'pod-template-hash': '5d8f7c' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-5d8f7c`, uid: `uid-rs-${app}`, controller: true }],
      },
      spec,
    });
  }
  return out;
}

/** The ReplicaSets' selectors of `clusterMixPods` (no Services), parsed once per ReplicaSet as informers would hold them. */
function clusterMixSpreading(): SpreadingSelectorSource {
  const selectors = new Map<string, Selector>();
  return {
    serviceSelectors: () => [],
    controllerSelector: (pod) => {
      const owner = pod.metadata?.ownerReferences?.[0];
      if (owner === undefined) return undefined;
      let sel = selectors.get(owner.name);
      if (sel === undefined) {
        const app = pod.metadata?.labels?.['app'] ?? '';
        sel = new Selector([
          { key: 'app', operator: 'In', values: [app] },
          { key: 'pod-template-hash', operator: 'In', values: ['5d8f7c'] },
        ]);
        selectors.set(owner.name, sel);
      }
      return sel;
    },
  };
}

/** Runs one variant; deterministic for a given seed. */
export function runVariant(variant: BenchVariant, opts: BenchOptions = {}): BenchResult {
  const numNodes = opts.nodes ?? 5000;
  const initialPods = opts.initialPods ?? 1000;
  const measured = opts.measuredPods ?? 10_000;
  const random = mulberry32(opts.seed ?? 1);
  const cache = new Cache();
  const mix = variant === 'ClusterMix' || variant === 'ClusterMixManyWorkloads';
  const workloadsPerKind = variant === 'ClusterMixManyWorkloads' ? manyWorkloads : undefined;
  const nodes = mix ? clusterMixNodes(numNodes) : benchNodes(numNodes);
  for (const n of nodes) cache.addNode(n);
  const linux = nodes.filter((n) => n.metadata?.labels?.['kubernetes.io/os'] === 'linux');
  for (let i = 0; i < initialPods; i++) {
    const p = basePod(`initial-${i}`, '250m', '256Mi');
    (p.spec as NonNullable<Pod['spec']>).nodeName = linux[i % linux.length]?.metadata?.name ?? '';
    cache.addPod(p);
  }
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), random, ...(mix ? { spreadingSelectorSource: clusterMixSpreading() } : {}) });
  const algo = new SchedulingAlgorithm({ cache, random });
  const pods = mix ? clusterMixPods(measured, 0, workloadsPerKind) : benchPods(variant, measured);
  // Warm-up pods (not measured) let the JIT settle.
  for (const p of mix ? clusterMixPods(200, 1_000_000, workloadsPerKind) : benchPods(variant, 200, 1_000_000)) {
    const out = algo.schedulingCycle(fwk, p);
    if (out.kind === 'assumed') cache.finishBinding(out.assumedPod);
  }
  let bound = 0;
  let unschedulable = 0;
  const placements = createHash('sha256');
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  for (const p of pods) {
    const out = algo.schedulingCycle(fwk, p);
    if (out.kind === 'assumed') {
      cache.finishBinding(out.assumedPod);
      placements.update(`${out.nodeName}\n`);
      bound++;
    } else {
      placements.update('-\n');
      unschedulable++;
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { variant, nodes: numNodes, measuredPods: measured, bound, unschedulable, seconds, podsPerSecond: bound / seconds, attemptsPerSecond: (bound + unschedulable) / seconds, cpuSeconds, podsPerCpuSecond: bound / cpuSeconds, placementsHash: placements.digest('hex').slice(0, 16) };
}

/** Runs the variants and returns their results (printing is the caller's choice). */
export function runSchedulerBench(opts: BenchOptions = {}): BenchResult[] {
  const variants = opts.variants ?? ['SchedulingBasic', 'NodeAffinityAndTaints', 'UnschedulableHeavy'];
  return variants.map((v) => runVariant(v, opts));
}

const usage = `usage: bench/scheduler.js [--nodes N] [--initial-pods N] [--pods N] [--variant NAME ...] [--seed N]
  --nodes         nodes in the cluster (default 5000)
  --initial-pods  pods placed before measuring (default 1000)
  --pods          measured pods per variant (default 10000)
  --variant       ${benchVariants.join(', ')} (repeatable; default all)
  --seed          seed of the tie-break randomness (default 1)`;

/** `node dist/bench/scheduler.js`: prints one line per variant. */
export function main(argv: readonly string[] = process.argv.slice(2)): void {
  const { values } = parseArgs({
    args: [...argv],
    options: { nodes: { type: 'string' }, 'initial-pods': { type: 'string' }, pods: { type: 'string' }, variant: { type: 'string', multiple: true }, seed: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help === true) {
    console.log(usage);
    return;
  }
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const variants = values.variant?.map((v) => {
    if (!(benchVariants as readonly string[]).includes(v)) throw new Error(`unknown variant ${v}\n${usage}`);
    return v as BenchVariant;
  });
  const opts: BenchOptions = {};
  const nodes = num(values.nodes);
  const initialPods = num(values['initial-pods']);
  const measuredPods = num(values.pods);
  const seed = num(values.seed);
  if (nodes !== undefined) opts.nodes = nodes;
  if (initialPods !== undefined) opts.initialPods = initialPods;
  if (measuredPods !== undefined) opts.measuredPods = measuredPods;
  if (seed !== undefined) opts.seed = seed;
  opts.variants = variants ?? [...benchVariants];
  for (const r of runSchedulerBench(opts)) {
    console.log(
      `${r.variant}: ${r.bound} bound, ${r.unschedulable} unschedulable of ${r.measuredPods} on ${r.nodes} nodes in ${r.seconds.toFixed(2)} s = ${r.podsPerSecond.toFixed(0)} pods/s bound (${r.attemptsPerSecond.toFixed(0)} attempts/s); ${r.cpuSeconds.toFixed(2)} CPU s = ${r.podsPerCpuSecond.toFixed(0)} pods per CPU second, ${((r.cpuSeconds * 1e6) / r.measuredPods).toFixed(0)} CPU µs per pod; placements ${r.placementsHash}`,
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
