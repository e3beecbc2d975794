/**
 * The cluster benchmark (issue 11): `npm run bench -- --nodes N --pods P [--store sqlite|etcd]`.
 *
 * One process: a LocalCluster on a temporary data dir with N simulated nodes in a realistic mix (60%
 * linux/amd64, 20% linux/arm64, 10% Windows Server 2019, 10% Windows Server 2022, Windows tainted
 * `os=windows:NoSchedule`, spread over three zones), the kube-system add-ons, real lease and status
 * intervals; then Deployments whose replicas add up to P with a spread of constraints (no selector, a Linux
 * nodeSelector, a Windows RuntimeClass, arch node affinity, a zone topology spread). It measures:
 *
 * - nodesReadySeconds: start to all N nodes Ready;
 * - podsRunningSeconds: first Deployment created to all P pods Running, seen through a pod watch;
 * - schedulerPodsPerSecond: pods seen bound, counted every second and averaged over the seconds from the
 *   first to the last bind (scheduler_perf's throughput collector);
 * - apiMutatingP50Ms / apiMutatingP99Ms: the mutating calls (create, update, patch, delete, subresources
 *   such as binding) of the components and the nodes, from the first node registration to the end of the
 *   run, measured as upstream's API call latency SLI does: the processing time, from the moment the API
 *   server starts the call to its answer, without the time it waited in API Priority and Fairness
 *   (sig-scalability's api_call_latency.md). The summary also prints that wait, and the two together;
 * - podStartupP99Ms: per pod, from the watch's ADDED event to the first event showing it Running;
 * - peakRssMiB: process.resourceUsage().maxRSS; storageMiB: the store's files on disk at the end.
 *
 * It prints a human summary and, as the last line, one JSON object with exactly those keys plus nodes,
 * pods and store.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Node, NodeCondition, PodSpec } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { resources } from '../src/api/resources.js';
import { parseSelector } from '../src/api/labels.js';
import { FieldSelector } from '../src/api/fields.js';
import type { ApiServer } from '../src/apiserver/server.js';
import type { Client } from '../src/client/client.js';
import { storedTextOf, type CachedObject } from '../src/apiserver/storage/watch-cache.js';
import { memberText } from '../src/apiserver/storage/json-text.js';
import { expandCluster, readClusterConfig, type ClusterSpec } from '../src/cluster/index.js';
import type { NativeClusterConfig, NativeNodeGroupConfig } from '../src/cluster/index.js';
import { LocalCluster } from '../src/local/local-cluster.js';
import { tuneGarbageCollection } from '../src/util/gc-settings.js';
import { tuneCompiler } from '../src/util/compiler-settings.js';
import { startTestEtcd, type TestEtcd } from '../src/storage/etcd/_test-etcd.js';

export type BenchStore = 'sqlite' | 'etcd';

export interface BenchOptions {
  nodes: number;
  pods: number;
  store?: BenchStore;
  /** Give up after this long waiting for nodes or pods (default 30 minutes). */
  timeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** The JSON line's keys, in order. */
export const benchKeys = [
  'nodes',
  'pods',
  'store',
  'nodesReadySeconds',
  'podsRunningSeconds',
  'schedulerPodsPerSecond',
  'apiMutatingP99Ms',
  'apiMutatingP50Ms',
  'podStartupP99Ms',
  'peakRssMiB',
  'storageMiB',
] as const;

export type BenchJson = { nodes: number; pods: number; store: BenchStore } & Record<Exclude<(typeof benchKeys)[number], 'nodes' | 'pods' | 'store'>, number>;

export interface BenchResult {
  json: BenchJson;
  /** Pods of the benchmark seen Running (equals `pods` when the run completed). */
  running: number;
  /** The human summary, then the JSON line last. */
  lines: string[];
}

const namespace = 'bench';
/** The client methods that write. */
const mutatingVerbs: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deleteCollection', 'createSubresource']);
const zones = ['zone-a', 'zone-b', 'zone-c'];
const pause = 'registry.k8s.io/pause:3.10';
const windowsTaint = 'os=windows:NoSchedule';
const builds = { 'windows-2019': '10.0.17763', 'windows-2022': '10.0.20348' } as const;

/** Splits `total` by integer weights, largest remainders first, so the parts add up exactly. */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    parts[i] = (parts[i] ?? 0) + 1;
  }
  return parts;
}

/** The node mix as a native cluster config: four kinds times three zones. */
export function benchClusterSpec(nodes: number): ClusterSpec {
  const kinds: { name: string; weight: number; group: Omit<NativeNodeGroupConfig, 'name' | 'count'> }[] = [
    { name: 'linux-amd64', weight: 6, group: { os: 'linux', arch: 'amd64' } },
    { name: 'linux-arm64', weight: 2, group: { os: 'linux', arch: 'arm64' } },
    { name: 'windows-2019', weight: 1, group: { os: 'windows', arch: 'amd64', windowsBuild: builds['windows-2019'], taints: [windowsTaint] } },
    { name: 'windows-2022', weight: 1, group: { os: 'windows', arch: 'amd64', windowsBuild: builds['windows-2022'], taints: [windowsTaint] } },
  ];
  const counts = apportion(nodes, kinds.map((k) => k.weight));
  const groups: NativeNodeGroupConfig[] = [];
  kinds.forEach((k, i) => {
    apportion(counts[i] ?? 0, zones.map(() => 1)).forEach((count, z) => {
      const zone = zones[z] ?? 'zone-a';
      if (count > 0) {
        groups.push({ name: `${k.name}-${zone.slice(-1)}`, count, cpu: 8, memory: '32Gi', maxPods: 110, labels: { 'topology.kubernetes.io/zone': zone }, ...k.group });
      }
    });
  });
  const config: NativeClusterConfig = { apiVersion: 'kubemix.dev/v1alpha1', kind: 'Cluster', metadata: { name: 'bench' }, nodeGroups: groups };
  return readClusterConfig(config, 'bench.yaml');
}

type Constraint = 'none' | 'linux' | 'windows-2019' | 'windows-2022' | 'arm64' | 'spread';

/** How P pods split over constraints: 30% none, 25% Linux selector, 5% + 5% Windows, 15% arm64, 20% zone spread. */
const constraintWeights: readonly [Constraint, number][] = [
  ['none', 30],
  ['linux', 25],
  ['windows-2019', 5],
  ['windows-2022', 5],
  ['arm64', 15],
  ['spread', 20],
];

/** At most this many replicas per Deployment. */
const maxReplicas = 1000;

function podSpec(c: Constraint, app: string): PodSpec {
  const spec: PodSpec = {
    containers: [{ name: 'app', image: pause, imagePullPolicy: 'IfNotPresent', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
  };
  switch (c) {
    case 'none':
      break;
    case 'linux':
      spec.nodeSelector = { 'kubernetes.io/os': 'linux' };
      break;
    case 'windows-2019':
    case 'windows-2022':
      spec.runtimeClassName = c;
      break;
    case 'arm64':
      spec.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }],
          },
        },
      };
      break;
    case 'spread':
      spec.nodeSelector = { 'kubernetes.io/os': 'linux' };
      spec.topologySpreadConstraints = [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } },
      ];
      break;
  }
  return spec;
}

/** The Deployments of a run: each constraint's share cut into Deployments of at most 1,000 replicas. */
export function benchDeployments(pods: number): Deployment[] {
  const out: Deployment[] = [];
  const shares = apportion(pods, constraintWeights.map(([, w]) => w));
  constraintWeights.forEach(([c], i) => {
    const share = shares[i] ?? 0;
    const count = Math.ceil(share / maxReplicas);
    apportion(share, Array.from({ length: count }, () => 1)).forEach((replicas, j) => {
      const app = `${c}-${j}`;
      out.push({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: app, namespace },
        spec: {
          replicas,
          selector: { matchLabels: { app } },
          template: { metadata: { labels: { app, bench: 'true' } }, spec: podSpec(c, app) },
        },
      });
    });
  });
  return out;
}

function runtimeClasses(): RuntimeClass[] {
  return (Object.entries(builds) as [keyof typeof builds, string][]).map(([name, build]) => ({
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name },
    handler: 'runhcs-wcow-process',
    scheduling: {
      nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': build },
      tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
    },
  }));
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? 0;
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

const round = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * Watches one namespace's objects of a resource straight from the API server's watch cache, which keeps
 * each object's fields beside it and, while a change is dispatched, its stored text: observing 150,000 pods
 * must not cost the server it measures a decoded copy of every change. Resolves true once `onChange` does,
 * false if the watch is closed first.
 */
function watchCached(
  server: ApiServer,
  target: { group: string; version: string; resource: string; namespace: string; labelSelector: string },
  onChange: (type: string, c: CachedObject) => boolean,
): { done: Promise<boolean>; close: () => void } {
  let finish: (v: boolean) => void = () => undefined;
  const done = new Promise<boolean>((resolve) => (finish = resolve));
  const def = server.table.get(target.group, target.version, target.resource);
  if (def === undefined) throw new Error(`${target.resource} are not served`);
  const stopped = server.store.watch(
    def,
    { namespace: target.namespace, labelSelector: parseSelector(target.labelSelector), fieldSelector: FieldSelector.everything() },
    {
      push: (type, c) => {
        if (onChange(type, c)) finish(true);
      },
      close: () => finish(false),
    },
  );
  stopped.catch(() => finish(false));
  // However the watch ends, it is stopped once it has started.
  void done.then(() => stopped.then((stop) => stop(), () => undefined));
  return { done, close: () => finish(false) };
}

/** `watchCached` for the objects' selectable fields (such as name, node, phase). */
function watchFields(
  server: ApiServer,
  target: { group: string; version: string; resource: string; namespace: string; labelSelector: string },
  onChange: (type: string, fields: Readonly<Record<string, string>>) => boolean,
): { done: Promise<boolean>; close: () => void } {
  return watchCached(server, target, (type, c) => {
    if (c.attrs === undefined) throw new Error('watch cache delivered a change without its attributes');
    return onChange(type, c.attrs.fields);
  });
}

/**
 * Whether a node is Ready, read from the `status.conditions` of its stored text when the change carries
 * it (a node's text is mostly images, labels and managedFields), else from the decoded node.
 */
function nodeReady(c: CachedObject): boolean {
  const text = storedTextOf(c);
  const conditions = text !== undefined ? memberText(text, ['status', 'conditions']) : undefined;
  const list = conditions !== undefined ? (JSON.parse(conditions) as NodeCondition[] | null) : (c.obj as Node).status?.conditions;
  return (list ?? []).some((n) => n.type === 'Ready' && n.status === 'True');
}

/**
 * The renewals of the nodes' leases while pods start: how many, and the longest any lease waited between
 * two (the kubelet renews every 10 s; the node lifecycle controller marks a node unknown after 40 s).
 * A lease not renewed since its last renewal counts its wait up to the end of the measurement.
 */
function watchLeaseRenewals(server: ApiServer): { stop: () => { renewals: number; leases: number; longestWaitSeconds: number } } {
  const start = performance.now();
  const last = new Map<string, number>();
  let renewals = 0;
  let longest = 0;
  const w = watchFields(server, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'kube-node-lease', labelSelector: '' }, (type, f) => {
    const name = f['metadata.name'] ?? '';
    const now = performance.now();
    if (type === 'DELETED') last.delete(name);
    else {
      const previous = last.get(name);
      if (type === 'MODIFIED') renewals++;
      longest = Math.max(longest, now - (previous ?? start));
      last.set(name, now);
    }
    return false;
  });
  return {
    stop: () => {
      w.close();
      const end = performance.now();
      for (const t of last.values()) longest = Math.max(longest, end - t);
      return { renewals, leases: last.size, longestWaitSeconds: round(longest / 1000, 1) };
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`timed out after ${ms / 1000} s waiting for ${what}`));
    }, ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Runs the benchmark once; always stops the cluster (and etcd) and removes the data dir. */
export async function runBench(o: BenchOptions): Promise<BenchResult> {
  const store: BenchStore = o.store ?? 'sqlite';
  const timeoutMs = o.timeoutMs ?? 30 * 60_000;
  const log = o.log ?? ((): void => {});
  const spec = benchClusterSpec(o.nodes);
  const nodeCount = expandCluster(spec).length;
  const dataDir = await mkdtemp(join(tmpdir(), 'kubemix-bench-'));
  let etcd: TestEtcd | undefined;
  let cluster: LocalCluster | undefined;
  const latencies: number[] = [];
  const queued: number[] = [];
  const total: number[] = [];
  const callsByResource = new Map<string, number>();
  const observe = (verb: string, resource: string, ms: number, queuedMs: number): void => {
    if (!mutatingVerbs.has(verb)) return;
    latencies.push(ms);
    queued.push(queuedMs);
    total.push(queuedMs + ms);
    const k = `${verb} ${resource}`;
    callsByResource.set(k, (callsByResource.get(k) ?? 0) + 1);
  };
  let stopObserving: (() => void) | undefined;
  try {
    if (store === 'etcd') etcd = await startTestEtcd();
    const t0 = performance.now();
    const c = (cluster = new LocalCluster({
      spec,
      dataDir,
      port: 0,
      ...(etcd !== undefined ? { store: { kind: 'etcd' as const, endpoints: etcd.endpoints } } : {}),
      onProgress: (registered, total) => {
        stopObserving ??= c.apiServer().callLatency.observe(observe);
        if (registered % 500 === 0 || registered === total) log(`registered ${registered}/${total} nodes`);
      },
      log: (m) => log(m),
    }));
    await c.start();
    stopObserving ??= c.apiServer().callLatency.observe(observe);
    const client: Client = c.adminClient();

    // Nodes Ready.
    const ready = new Set<string>();
    const nodeWatch = watchCached(c.apiServer(), { group: '', version: 'v1', resource: 'nodes', namespace: '', labelSelector: '' }, (type, node) => {
      const name = node.attrs?.fields['metadata.name'] ?? '';
      if (type !== 'DELETED' && nodeReady(node)) {
        if (!ready.has(name) && (ready.size + 1) % 500 === 0) log(`${ready.size + 1}/${nodeCount} nodes Ready`);
        ready.add(name);
      } else ready.delete(name);
      return ready.size >= nodeCount;
    });
    const allReady = await withTimeout(nodeWatch.done, timeoutMs, 'nodes Ready', () => nodeWatch.close()).finally(() => nodeWatch.close());
    if (!allReady) throw new Error(`node watch ended with ${ready.size}/${nodeCount} nodes Ready`);
    const nodesReadySeconds = (performance.now() - t0) / 1000;
    log(`${nodeCount} nodes Ready in ${nodesReadySeconds.toFixed(1)} s`);

    // Pods Running.
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const rc of runtimeClasses()) await client.create(resources.runtimeclasses, rc);
    const added = new Map<string, number>();
    const bound = new Set<string>();
    const running = new Set<string>();
    const startup: number[] = [];
    const boundPerSecond: number[] = [];
    let lastBound = 0;
    let lastSample = performance.now();
    // A busy event loop fires the ticker late: each sample is the bound pods per second of its real interval.
    const sample = (): void => {
      const now = performance.now();
      boundPerSecond.push(((bound.size - lastBound) * 1000) / Math.max(1, now - lastSample));
      lastBound = bound.size;
      lastSample = now;
    };
    const sampler = setInterval(() => {
      sample();
      log(`${bound.size} bound, ${running.size}/${o.pods} Running`);
    }, 1000);
    const leases = watchLeaseRenewals(c.apiServer());
    const podWatch = watchFields(c.apiServer(), { group: '', version: 'v1', resource: 'pods', namespace, labelSelector: 'bench=true' }, (type, f) => {
      const name = f['metadata.name'] ?? '';
      const now = performance.now();
      if (type === 'DELETED') return false;
      if (!added.has(name)) added.set(name, now);
      if ((f['spec.nodeName'] ?? '') !== '') bound.add(name);
      if (f['status.phase'] === 'Running' && !running.has(name)) {
        running.add(name);
        startup.push(now - (added.get(name) ?? now));
      }
      return running.size >= o.pods;
    });
    const t1 = performance.now();
    const deployments = benchDeployments(o.pods);
    await Promise.all(deployments.map((d) => client.create(resources.deployments, d)));
    log(`created ${deployments.length} Deployments`);
    let allRunning: boolean;
    try {
      allRunning = await withTimeout(podWatch.done, timeoutMs, 'pods Running', () => podWatch.close());
    } finally {
      clearInterval(sampler);
      podWatch.close();
    }
    if (!allRunning) throw new Error(`pod watch ended with ${running.size}/${o.pods} pods Running`);
    const podsRunningSeconds = (performance.now() - t1) / 1000;
    const leaseRenewals = leases.stop();
    stopObserving();
    stopObserving = undefined;
    // The last partial second counts too; seconds before the first bind and after the last do not.
    sample();
    const first = boundPerSecond.findIndex((n) => n > 0);
    let last = boundPerSecond.length - 1;
    while (last > first && boundPerSecond[last] === 0) last--;
    const samples = first < 0 ? [] : boundPerSecond.slice(first, last + 1);
    const schedulerPodsPerSecond = samples.length === 0 ? 0 : samples.reduce((a, b) => a + b, 0) / samples.length;

    latencies.sort((a, b) => a - b);
    queued.sort((a, b) => a - b);
    total.sort((a, b) => a - b);
    startup.sort((a, b) => a - b);
    const storageBytes = await directoryBytes(etcd !== undefined ? etcd.dataDir : dataDir);
    const json: BenchJson = {
      nodes: nodeCount,
      pods: o.pods,
      store,
      nodesReadySeconds: round(nodesReadySeconds, 2),
      podsRunningSeconds: round(podsRunningSeconds, 2),
      schedulerPodsPerSecond: round(schedulerPodsPerSecond, 1),
      apiMutatingP99Ms: round(percentile(latencies, 99), 2),
      apiMutatingP50Ms: round(percentile(latencies, 50), 2),
      podStartupP99Ms: round(percentile(startup, 99), 1),
      peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
      storageMiB: round(storageBytes / (1024 * 1024), 1),
    };
    const lines = [
      `kubemix bench: ${nodeCount} nodes, ${o.pods} pods, ${store} store`,
      `  nodes Ready            ${json.nodesReadySeconds} s`,
      `  pods Running           ${json.podsRunningSeconds} s (${deployments.length} Deployments)`,
      `  scheduler              ${json.schedulerPodsPerSecond} pods/s bound (mean of ${samples.length} one-second samples)`,
      `  mutating API calls     p50 ${json.apiMutatingP50Ms} ms, p99 ${json.apiMutatingP99Ms} ms (${latencies.length} calls; processing, as upstream's SLI)`,
      `    waiting in APF       p50 ${round(percentile(queued, 50), 2)} ms, p99 ${round(percentile(queued, 99), 2)} ms; with the wait p50 ${round(percentile(total, 50), 2)} ms, p99 ${round(percentile(total, 99), 2)} ms`,
      `  busiest writes         ${[...callsByResource].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, n]) => `${k} ${n}`).join(', ')}`,
      `  pod startup            p99 ${json.podStartupP99Ms} ms`,
      `  node leases            ${leaseRenewals.renewals} renewals of ${leaseRenewals.leases} while pods started, longest wait ${leaseRenewals.longestWaitSeconds} s (renewed every 10 s)`,
      `  peak RSS               ${json.peakRssMiB} MiB`,
      `  storage on disk        ${json.storageMiB} MiB`,
      JSON.stringify(json),
    ];
    return { json, running: running.size, lines };
  } finally {
    stopObserving?.();
    await cluster?.stop();
    await etcd?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Parses `--nodes N --pods P [--store sqlite|etcd]`. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const o: BenchOptions = { nodes: 500, pods: 15_000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    const [name, inline] = flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined];
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    if (name === '--nodes' || name === '--pods') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, not ${JSON.stringify(value)}`);
      if (name === '--nodes') o.nodes = n;
      else o.pods = n;
    } else if (name === '--store') {
      if (value !== 'sqlite' && value !== 'etcd') throw new Error(`--store must be sqlite or etcd, not ${JSON.stringify(value)}`);
      o.store = value;
    } else {
      throw new Error(`unknown flag ${name} (usage: npm run bench -- --nodes N --pods P [--store sqlite|etcd])`);
    }
  }
  return o;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const o = parseBenchArgs(argv);
  tuneGarbageCollection();
  tuneCompiler();
  const start = performance.now();
  const result = await runBench({ ...o, log: (line) => console.error(`[${((performance.now() - start) / 1000).toFixed(1)} s] ${line}`) });
  for (const line of result.lines) console.log(line);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      process.exit(1);
    },
  );
}
