/**
 * `kubemix check`'s simulation: every input object goes through the API server's create path (defaults,
 * admission, validation; `dry-run.ts`), every accepted workload through its controller's pod generation
 * (`workloads.ts`), every pod through the scheduler's own framework, plugins and scheduling cycle into one
 * cache (so resources, ports, spreading and anti-affinity accumulate as in a real cluster), and every placed
 * pod through the kubelet's OS admission and the runtime's image platform rules on its node.
 */
import type { Pod, Service, Taint } from 'kubernetes-types/core/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { labelSelectorAsSelector, type Selector } from '../api/labels.js';
import type { KubeObject } from '../client/client.js';
import { Cache } from '../scheduler/cache/cache.js';
import { CycleState } from '../scheduler/framework/cycle-state.js';
import { defaultProfile, defaultSchedulerName } from '../scheduler/framework/profile.js';
import { Framework } from '../scheduler/framework/runtime.js';
import { newInTreeRegistry } from '../scheduler/plugins/registry.js';
import { SchedulingAlgorithm } from '../scheduler/schedule-one.js';
import { compareStrings } from '../util/compare-strings.js';
import { admitPod, admissionReasons, rejectionMessage } from '../node/kubelet/admission.js';
import type { ImageCatalog } from '../node/runtime/catalog.js';
import { imageOutcome, nodePlatform } from '../node/runtime/outcome.js';
import { nodeGroups, type ClusterView, type SimNode } from './cluster.js';
import { DryRunApi } from './dry-run.js';
import {
  archLabel,
  hasOSConstraint,
  osLabel,
  podSpecFix,
  rejectedHazard,
  removedApiHazard,
  runtimeClassHazard,
  selectedOS,
  tolerationsFor,
  untoleratedTaintOf,
  windowsBuildLabel,
} from './hazards.js';
import type { InputObject } from './input.js';
import { removedApi } from './removed-apis.js';
import type { CheckReport, GroupFeasibility, Hazard, NodeOutcome, ObjectReport, PendingPods, Placement, WorkloadReport } from './types.js';
import { reportApiVersion, reportKind } from './types.js';
import { jobOfCronJob, newReplicaSet, podsOfWorkload, workloadKindNames, workloadKinds } from './workloads.js';

export interface CheckOptions {
  manifests: readonly InputObject[];
  cluster: ClusterView;
  catalog: ImageCatalog;
  /** Uniform random in [0, 1) for the scheduler's host tie-breaks (default: seeded, reproducible). */
  random?: () => number;
}

interface OutcomeOnNode {
  outcome: NodeOutcome;
  message?: string;
  /** The failure comes from an image (pull or start), not from the kubelet's OS admission. */
  image?: boolean;
}

interface PodPlacement {
  node?: SimNode;
  pendingMessage?: string;
  outcome?: OutcomeOnNode;
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

/** What the node does with the pod: the kubelet's OS admission, then each container image in start order. */
export function outcomeOnNode(pod: Pod, node: SimNode, catalog: ImageCatalog): OutcomeOnNode {
  const admit = admitPod(pod, node.node, [], node.os);
  if (!admit.admit && (admit.reason === admissionReasons.PodOSNotSupported || admit.reason === admissionReasons.PodOSSelectorNodeLabelDoesNotMatch)) {
    return { outcome: admit.reason, message: admit.message };
  }
  const platform = nodePlatform({ os: node.os, arch: node.arch, ...(node.windowsBuild !== undefined ? { windowsBuild: node.windowsBuild } : {}), ...(node.kernelVersion !== undefined ? { kernelVersion: node.kernelVersion } : {}) });
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const o = imageOutcome(catalog, c.image ?? '', platform);
    switch (o.kind) {
      case 'runs':
        continue;
      case 'pullFails':
        return { outcome: 'ErrImagePull', message: o.message, image: true };
      case 'invalidName':
        return { outcome: 'InvalidImageName', message: o.message, image: true };
      case 'startFails':
        return { outcome: o.reason === 'execFormat' ? 'CrashLoopBackOff' : 'StartError', message: o.message, image: true };
    }
  }
  return { outcome: 'Running' };
}

/** The simulation state shared by every workload of one check. */
class Simulation {
  readonly api: DryRunApi;
  readonly cache = new Cache();
  readonly fwk: Framework;
  readonly algo: SchedulingAlgorithm;
  readonly feasibility: SchedulingAlgorithm;
  readonly byName = new Map<string, SimNode>();
  private readonly services: Service[] = [];
  private readonly controllerSelectors = new Map<string, Selector>();
  private readonly namespaceNames = new Set<string>(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

  constructor(
    readonly cluster: ClusterView,
    readonly catalog: ImageCatalog,
    random: () => number,
  ) {
    this.api = new DryRunApi({ cluster });
    for (const n of cluster.nodes) {
      this.cache.addNode(n.node);
      this.byName.set(n.name, n);
    }
    for (const p of cluster.existingPods) this.cache.addPod(p);
    for (const ns of cluster.namespaces) this.namespaceNames.add(ns.metadata?.name ?? '');
    this.fwk = new Framework({
      registry: newInTreeRegistry(),
      profile: defaultProfile(),
      random,
      namespaces: {
        labels: (ns) => cluster.namespaces.find((n) => n.metadata?.name === ns)?.metadata?.labels ?? { 'kubernetes.io/metadata.name': ns },
        matching: (sel) => [...this.namespaceNames].filter((ns) => sel.matches(cluster.namespaces.find((n) => n.metadata?.name === ns)?.metadata?.labels ?? { 'kubernetes.io/metadata.name': ns })),
      },
      spreadingSelectorSource: {
        serviceSelectors: (ns) => this.services.filter((s) => s.metadata?.namespace === ns && s.spec?.selector !== undefined).map((s) => s.spec?.selector ?? {}),
        controllerSelector: (pod) => {
          const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
          return ref === undefined ? undefined : this.controllerSelectors.get(ref.uid);
        },
      },
    });
    this.algo = new SchedulingAlgorithm({ cache: this.cache, random });
    this.feasibility = new SchedulingAlgorithm({ cache: this.cache, percentageOfNodesToScore: 100, random });
  }

  noteObject(obj: KubeObject): void {
    if (obj.metadata?.namespace !== undefined) this.namespaceNames.add(obj.metadata.namespace);
    if (obj.apiVersion === 'v1' && obj.kind === 'Service') this.services.push(obj as Service);
    if (obj.apiVersion === 'v1' && obj.kind === 'Namespace') this.namespaceNames.add(obj.metadata?.name ?? '');
  }

  noteController(uid: string, selector: Parameters<typeof labelSelectorAsSelector>[0] | undefined): void {
    if (selector !== undefined) this.controllerSelectors.set(uid, labelSelectorAsSelector(selector));
  }

  /** Per node: undefined when the filters accept the pod, else the scheduler's reasons. */
  feasibleNodes(pod: Pod): Map<string, readonly string[] | undefined> {
    this.cache.updateSnapshot(this.feasibility.snapshot);
    this.fwk.setSnapshot(this.feasibility.snapshot);
    const r = this.feasibility.findNodesThatFitPod(this.fwk, new CycleState(), pod);
    const feasible = new Set(r.feasibleNodes.map((n) => n.name));
    const out = new Map<string, readonly string[] | undefined>();
    for (const n of this.cluster.nodes) {
      if (feasible.has(n.name)) {
        out.set(n.name, undefined);
        continue;
      }
      if (r.error !== undefined) {
        out.set(n.name, [r.error.message()]);
        continue;
      }
      const s = r.diagnosis.nodeToStatus.get(n.name);
      const reasons = s.reasons();
      out.set(n.name, reasons.length > 0 ? reasons : r.diagnosis.preFilterMsg !== '' ? [r.diagnosis.preFilterMsg] : ['node(s) were rejected by the scheduler']);
    }
    return out;
  }

  /**
   * One pod as the cluster handles it: a pod with `spec.nodeName` goes straight to that node's kubelet
   * (full kubelet admission, no scheduler); a pod for another scheduler or with scheduling gates waits;
   * any other pod goes through one scheduling cycle. A placed pod stays in the cache (as bound).
   */
  place(pod: Pod): PodPlacement {
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName !== '') {
      const node = this.byName.get(nodeName);
      if (node === undefined) return { pendingMessage: `spec.nodeName is "${nodeName}", a node the cluster does not have: the pod stays Pending` };
      const others = this.cache.nodeInfo(nodeName)?.pods.map((p) => p.pod) ?? [];
      const admit = admitPod(pod, node.node, others, node.os);
      this.cache.addPod(pod);
      if (!admit.admit) return { node, outcome: { outcome: admit.reason, message: rejectionMessage(admit.message) } };
      return { node, outcome: outcomeOnNode(pod, node, this.catalog) };
    }
    const schedulerName = pod.spec?.schedulerName ?? defaultSchedulerName;
    if (schedulerName !== defaultSchedulerName) return { pendingMessage: `spec.schedulerName is "${schedulerName}": only ${defaultSchedulerName} was simulated, the pod waits for that scheduler` };
    const gate = this.fwk.runPreEnqueuePlugins(pod);
    if (!gate.isSuccess()) return { pendingMessage: gate.message() };
    const out = this.algo.schedulingCycle(this.fwk, pod);
    if (out.kind === 'failed') return { pendingMessage: out.status.message() };
    this.cache.finishBinding(out.assumedPod);
    const node = this.byName.get(out.nodeName);
    if (node === undefined) return { pendingMessage: `node ${out.nodeName} not found` };
    return { node, outcome: outcomeOnNode(out.assumedPod, node, this.catalog) };
  }
}

function refOf(item: InputObject, namespaced: boolean): { apiVersion: string; kind: string; namespace: string; name: string } {
  return {
    apiVersion: item.obj.apiVersion ?? '',
    kind: item.obj.kind ?? '',
    namespace: namespaced ? item.obj.metadata?.namespace || 'default' : '',
    name: item.obj.metadata?.name ?? item.obj.metadata?.generateName ?? '',
  };
}

function isWorkload(obj: KubeObject): boolean {
  return workloadKinds.has(`${obj.apiVersion ?? ''}/${obj.kind ?? ''}`) || (removedApi(obj.apiVersion ?? '', obj.kind ?? '') !== undefined && workloadKindNames.has(obj.kind ?? ''));
}

/** Runs the whole check. Nothing is started or written; the cluster view is only read. */
export async function runCheck(opts: CheckOptions): Promise<CheckReport> {
  const sim = new Simulation(opts.cluster, opts.catalog, opts.random ?? mulberry32(1));
  // What the cluster runs before the user's objects (kubemix up's add-ons), placed silently.
  for (const obj of opts.cluster.bootstrapObjects) {
    const created = await sim.api.create(obj);
    if (!created.ok) continue;
    sim.noteObject(created.obj);
    if (isWorkload(created.obj)) await simulateWorkload(sim, { obj: created.obj, source: { file: '', document: 0 } });
  }
  const objects: ObjectReport[] = [];
  const workloads: WorkloadReport[] = [];
  // Objects the workloads depend on (namespaces, service accounts, RuntimeClasses, ...) are created first,
  // as helm orders an install; workloads follow in input order.
  for (const item of opts.manifests.filter((i) => !isWorkload(i.obj))) {
    const hazards = await createObject(sim, item);
    if (hazards.length > 0) objects.push({ ...refOf(item, sim.api.resourceFor(item.obj.apiVersion ?? '', item.obj.kind ?? '')?.namespaced ?? (item.obj.metadata?.namespace ?? '') !== ''), source: item.source, hazards });
  }
  for (const item of opts.manifests.filter((i) => isWorkload(i.obj))) workloads.push(await simulateWorkload(sim, item));

  let errors = 0;
  let warnings = 0;
  for (const h of [...objects.flatMap((o) => o.hazards), ...workloads.flatMap((w) => w.hazards)]) {
    if (h.severity === 'error') errors++;
    else warnings++;
  }
  const placedPods = workloads.reduce((s, w) => s + w.placements.reduce((a, p) => a + p.pods, 0), 0);
  const runningPods = workloads.reduce((s, w) => s + w.placements.filter((p) => p.outcome === 'Running').reduce((a, p) => a + p.pods, 0), 0);
  const pendingPods = workloads.reduce((s, w) => s + w.pending.reduce((a, p) => a + p.pods, 0), 0);
  return {
    apiVersion: reportApiVersion,
    kind: reportKind,
    cluster: { source: opts.cluster.source, name: opts.cluster.name, nodeGroups: nodeGroups(opts.cluster.nodes) },
    workloads,
    objects,
    summary: {
      workloads: workloads.length,
      desiredPods: workloads.reduce((s, w) => s + w.desiredPods, 0),
      placedPods,
      runningPods,
      pendingPods,
      errors,
      warnings,
      ok: errors === 0 && workloads.every((w) => w.ok),
    },
  };
}

async function createObject(sim: Simulation, item: InputObject): Promise<Hazard[]> {
  const apiVersion = item.obj.apiVersion ?? '';
  const kind = item.obj.kind ?? '';
  const removed = removedApi(apiVersion, kind);
  if (removed !== undefined) return [removedApiHazard(apiVersion, kind, removed)];
  if (sim.api.resourceFor(apiVersion, kind) === undefined) {
    // Custom resources and kinds kubemix does not serve: not ours to judge.
    return [];
  }
  const created = await sim.api.create(item.obj);
  if (!created.ok) return [rejectedHazard(created.message, item.obj)];
  sim.noteObject(created.obj);
  return [];
}

function emptyReport(item: InputObject, hazards: Hazard[]): WorkloadReport {
  return { ...refOf(item, true), source: item.source, desiredPods: 0, placements: [], pending: [], groups: [], hazards, ok: hazards.every((h) => h.severity !== 'error') };
}

async function simulateWorkload(sim: Simulation, item: InputObject): Promise<WorkloadReport> {
  const apiVersion = item.obj.apiVersion ?? '';
  const kind = item.obj.kind ?? '';
  const removed = removedApi(apiVersion, kind);
  if (removed !== undefined) return emptyReport(item, [removedApiHazard(apiVersion, kind, removed)]);
  const created = await sim.api.create(item.obj);
  if (!created.ok) return emptyReport(item, [rejectedHazard(created.message, item.obj)]);
  const obj = created.obj;
  sim.noteObject(obj);
  const ref = { ...refOf(item, true), namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
  let job: Job | undefined;
  if (kind === 'CronJob') {
    const j = await sim.api.create(jobOfCronJob(obj as CronJob));
    if (!j.ok) return { ...emptyReport(item, [rejectedHazard(`Error creating job: ${j.message}`, obj)]), ...ref };
    job = j.obj as Job;
  }
  const generated = podsOfWorkload(obj, sim.cluster.nodes, job);
  const spec = (obj as { spec?: { selector?: Parameters<typeof labelSelectorAsSelector>[0] } }).spec;
  if (kind === 'Deployment') sim.noteController(`${obj.metadata?.uid ?? ''}-rs`, newReplicaSet(obj as Deployment).spec?.selector);
  else sim.noteController(obj.metadata?.uid ?? '', spec?.selector);

  const hazards: Hazard[] = [];
  // The pod template through the Pod create path: RuntimeClass merges, tolerations, priority, validation.
  const tpl = await sim.api.create(generated.templatePod);
  if (!tpl.ok) {
    const rcName = generated.templatePod.spec?.runtimeClassName ?? '';
    if (rcName !== '' && !sim.api.hasRuntimeClass(rcName)) hazards.push(runtimeClassHazard(rcName, tpl.message, windowsOnlyImages(sim, generated.templatePod) ? 'runhcs-wcow-process' : 'runc'));
    else hazards.push(rejectedHazard(`Error creating: ${tpl.message}`, {}));
    return { ...emptyReport(item, hazards), ...ref, desiredPods: generated.pods.length, ok: false };
  }
  const templatePod = tpl.obj as Pod;
  const feasible = sim.feasibleNodes(templatePod);

  // Place the pods one by one.
  const results: PodPlacement[] = [];
  for (const p of generated.pods) {
    const c = await sim.api.create(p);
    if (!c.ok) {
      results.push({ pendingMessage: `Error creating: ${c.message}` });
      continue;
    }
    results.push(sim.place(c.obj as Pod));
  }

  const groups = groupFeasibility(sim, templatePod, feasible, kind === 'DaemonSet' ? new Set(generated.skippedNodes ?? []) : undefined);
  const placements = placementsOf(results);
  const pending = pendingOf(results);
  hazards.push(...workloadHazards(sim, kind, templatePod, groups, results, pending, feasible));
  const ok = pending.length === 0 && placements.every((p) => p.outcome === 'Running') && hazards.every((h) => h.severity !== 'error');
  return { ...ref, source: item.source, desiredPods: generated.pods.length, placements, pending, groups, hazards, ok };
}

/** Whether the pod's images run on some Windows node of the cluster and on no Linux node. */
function windowsOnlyImages(sim: Simulation, pod: Pod): boolean {
  const probe = structuredClone(pod);
  if (probe.spec !== undefined) delete (probe.spec as { os?: unknown }).os;
  const runsOn = (os: string): boolean => sim.cluster.nodes.some((n) => n.os === os && outcomeOnNode(probe, n, sim.catalog).outcome === 'Running');
  return runsOn('windows') && !runsOn('linux');
}

function groupFeasibility(sim: Simulation, pod: Pod, feasible: Map<string, readonly string[] | undefined>, dsSkipped: Set<string> | undefined): GroupFeasibility[] {
  const out = new Map<string, { g: GroupFeasibility; reasons: Map<string, number>; first?: SimNode }>();
  for (const n of sim.cluster.nodes) {
    let e = out.get(n.group);
    if (e === undefined) {
      e = { g: { group: n.group, nodes: 0, feasibleNodes: 0, reasons: [] }, reasons: new Map() };
      out.set(n.group, e);
    }
    e.g.nodes++;
    const reasons = feasible.get(n.name);
    if (reasons === undefined && dsSkipped?.has(n.name) !== true) {
      e.g.feasibleNodes++;
      e.first ??= n;
      continue;
    }
    for (const r of reasons ?? ['node(s) are not selected by the DaemonSet']) e.reasons.set(r, (e.reasons.get(r) ?? 0) + 1);
  }
  return [...out.values()].map(({ g, reasons, first }) => {
    g.reasons = [...reasons].map(([reason, nodes]) => ({ reason, nodes })).sort((a, b) => compareStrings(a.reason, b.reason));
    if (first !== undefined) {
      const o = outcomeOnNode(pod, first, sim.catalog);
      g.outcome = o.outcome;
      if (o.message !== undefined) g.message = o.message;
    }
    return g;
  });
}

function placementsOf(results: readonly PodPlacement[]): Placement[] {
  const out = new Map<string, Placement>();
  for (const r of results) {
    if (r.node === undefined || r.outcome === undefined) continue;
    const key = `${r.node.group}\u0000${r.outcome.outcome}\u0000${r.outcome.message ?? ''}`;
    let p = out.get(key);
    if (p === undefined) {
      p = { group: r.node.group, nodes: {}, pods: 0, outcome: r.outcome.outcome };
      if (r.outcome.message !== undefined) p.message = r.outcome.message;
      out.set(key, p);
    }
    p.pods++;
    p.nodes[r.node.name] = (p.nodes[r.node.name] ?? 0) + 1;
  }
  for (const p of out.values()) p.nodes = Object.fromEntries(Object.entries(p.nodes).sort(([a], [b]) => compareStrings(a, b)));
  return [...out.values()];
}

function pendingOf(results: readonly PodPlacement[]): PendingPods[] {
  const out = new Map<string, PendingPods>();
  for (const r of results) {
    if (r.pendingMessage === undefined) continue;
    const p = out.get(r.pendingMessage) ?? { pods: 0, message: r.pendingMessage };
    p.pods++;
    out.set(r.pendingMessage, p);
  }
  return [...out.values()];
}

/** Labels that single out `good` groups among `feasible` ones (os, then arch, then Windows build). */
function pinningSelector(sim: Simulation, good: readonly string[], feasibleGroups: readonly string[]): Record<string, string> | undefined {
  if (good.length === 0) return undefined;
  const nodesOf = (g: string): SimNode[] => sim.cluster.nodes.filter((n) => n.group === g);
  const sel: Record<string, string> = {};
  const bad = feasibleGroups.filter((g) => !good.includes(g));
  const matching = (g: string, labels: Record<string, string>): boolean => nodesOf(g).some((n) => Object.entries(labels).every(([k, x]) => n.node.metadata?.labels?.[k] === x));
  let remaining = bad;
  for (const label of [osLabel, archLabel, windowsBuildLabel]) {
    if (remaining.length === 0) break;
    const values = new Set(good.flatMap(nodesOf).map((n) => n.node.metadata?.labels?.[label]));
    const v = [...values][0];
    if (values.size !== 1 || v === undefined) continue;
    const next = remaining.filter((g) => matching(g, { ...sel, [label]: v }));
    if (next.length === remaining.length) continue;
    sel[label] = v;
    remaining = next;
  }
  return Object.keys(sel).length > 0 ? sel : undefined;
}

function nodesOfGroup(sim: Simulation, group: string, feasible: Map<string, readonly string[] | undefined>): string[] {
  return sim.cluster.nodes.filter((n) => n.group === group && feasible.get(n.name) === undefined).map((n) => n.name);
}

function workloadHazards(
  sim: Simulation,
  kind: string,
  pod: Pod,
  groups: readonly GroupFeasibility[],
  results: readonly PodPlacement[],
  pending: readonly PendingPods[],
  feasible: Map<string, readonly string[] | undefined>,
): Hazard[] {
  const hazards: Hazard[] = [];
  const feasibleGroups = groups.filter((g) => g.feasibleNodes > 0);
  const goodGroups = feasibleGroups.filter((g) => g.outcome === 'Running').map((g) => g.group);
  const feasibleOS = new Set(feasibleGroups.map((g) => sim.cluster.nodes.find((n) => n.group === g.group)?.os));
  const os = selectedOS(pod.spec);
  const runsOn = new Set(goodGroups.map((g) => sim.cluster.nodes.find((n) => n.group === g)?.os));
  const intendedOS = os.fromOSField ?? os.fromSelector ?? (runsOn.size === 1 ? [...runsOn][0] : undefined) ?? 'linux';

  // spec.os.name disagreeing with the selectors.
  const selectorContradicts = os.fromOSField !== undefined && os.fromSelector !== undefined && os.fromOSField !== os.fromSelector;
  if (selectorContradicts) {
    const target = runsOn.size === 1 ? ([...runsOn][0] as string) : os.fromOSField;
    hazards.push({
      type: 'OSFieldMismatch',
      severity: 'error',
      message: `spec.os.name is "${os.fromOSField}" but the node selector asks for ${osLabel}=${os.fromSelector}: the kubelet refuses the pod on ${os.fromSelector} nodes ("Failed to admit pod as the OS field doesn't match node OS") and the scheduler keeps it off ${os.fromOSField} nodes`,
      fix: podSpecFix(kind, { os: { name: target }, nodeSelector: { [osLabel]: target } }),
    });
  }

  // A template without any OS constraint that can land on Linux and Windows nodes alike.
  if (!hasOSConstraint(pod.spec) && feasibleOS.has('linux') && feasibleOS.has('windows')) {
    hazards.push({
      type: 'NoOSConstraint',
      severity: 'warning',
      message: `the pod template has no OS constraint and can be scheduled on both Linux and Windows nodes (${feasibleGroups.map((g) => g.group).join(', ')})`,
      fix: podSpecFix(kind, { nodeSelector: { [osLabel]: intendedOS } }),
    });
  }

  // Groups the pod can land on but not run on.
  const badGroups = feasibleGroups.filter((g) => g.outcome !== undefined && g.outcome !== 'Running');
  if (badGroups.length > 0) {
    const pin = pinningSelector(sim, goodGroups, feasibleGroups.map((g) => g.group));
    const fixFor = (extra: Record<string, unknown> = {}): string | undefined => (pin !== undefined ? podSpecFix(kind, { ...extra, nodeSelector: { ...(pod.spec?.nodeSelector ?? {}), ...pin } }) : undefined);
    if (kind === 'DaemonSet') {
      const lines = badGroups.map((g) => `${g.group} (${nodesOfGroup(sim, g.group, feasible).join(', ')}): ${g.outcome ?? ''}: ${g.message ?? ''}`);
      const n = badGroups.reduce((s, g) => s + g.feasibleNodes, 0);
      const h: Hazard = { type: 'DaemonSetCannotRun', severity: 'error', message: `the DaemonSet creates pods on ${n} node(s) where they cannot run: ${lines.join('; ')}` };
      const f = fixFor();
      if (f !== undefined) h.fix = f;
      hazards.push(h);
    } else {
      const describe = (gs: readonly GroupFeasibility[]): string => gs.map((g) => `${g.group} (${nodesOfGroup(sim, g.group, feasible).join(', ')}): ${g.outcome ?? ''}: ${g.message ?? ''}`).join('; ');
      const osFailures = badGroups.filter((g) => g.outcome === 'PodOSNotSupported' || g.outcome === 'PodOSSelectorNodeLabelDoesNotMatch');
      const imageFailures = badGroups.filter((g) => !osFailures.includes(g));
      // A selector that contradicts spec.os.name is reported once, above.
      if (osFailures.length > 0 && !selectorContradicts) {
        hazards.push({
          type: 'OSFieldMismatch',
          severity: 'error',
          message: `spec.os.name is "${os.fromOSField ?? ''}" but nothing keeps the pod off nodes of another OS, where the kubelet rejects it: ${describe(osFailures)}`,
          fix: podSpecFix(kind, { nodeSelector: { ...(pod.spec?.nodeSelector ?? {}), [osLabel]: os.fromOSField ?? intendedOS } }),
        });
      }
      if (imageFailures.length > 0) {
        const h: Hazard = { type: 'ImagePlatformMismatch', severity: 'error', message: `the pod can be scheduled on nodes where it cannot run: ${describe(imageFailures)}` };
        const f = fixFor();
        if (f !== undefined) h.fix = f;
        hazards.push(h);
      }
    }
  }

  // Windows pods without spec.os.name.
  const windowsOnly = os.fromSelector === 'windows' || (feasibleOS.size === 1 && feasibleOS.has('windows'));
  if (os.fromOSField === undefined && windowsOnly) {
    hazards.push({
      type: 'OSFieldMissing',
      severity: 'warning',
      message: 'the pod can only run on Windows nodes but does not set spec.os.name: windows, which the API server uses to validate Windows pods and the kubelet to refuse them on other operating systems',
      fix: podSpecFix(kind, { os: { name: 'windows' } }),
    });
  }

  // Pods the scheduler cannot place.
  for (const p of pending) {
    const h: Hazard = { type: 'Unschedulable', severity: 'error', message: `${p.pods} pod(s) stay Pending: ${p.message}` };
    const tols = tolerationFix(sim, groups, pod);
    if (tols.length > 0) h.fix = podSpecFix(kind, { tolerations: [...(pod.spec?.tolerations ?? []).filter((t) => !isDefaultToleration(t)), ...tols] });
    hazards.push(h);
  }
  // Placements no hazard above explains: pods bound with spec.nodeName, judged by the kubelet alone.
  const explained = new Set(badGroups.map((g) => g.group));
  for (const r of results) {
    if (r.node === undefined || r.outcome === undefined || r.outcome.outcome === 'Running' || explained.has(r.node.group)) continue;
    explained.add(r.node.group);
    hazards.push({
      type: r.outcome.image === true ? 'ImagePlatformMismatch' : 'NodeRejected',
      severity: 'error',
      message: `the pod is bound to ${r.node.name} (${r.node.group}) by spec.nodeName and cannot run there: ${r.outcome.outcome}: ${r.outcome.message ?? ''}`,
    });
  }
  return hazards;
}

function isDefaultToleration(t: { key?: string; effect?: string }): boolean {
  return (t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable') && t.effect === 'NoExecute';
}

/**
 * Tolerations for the taints that alone reject whole groups (never the control plane's), suggested only
 * when the scheduler then finds nodes for the pod (its filters stop at the first failure, so a taint can
 * hide a selector mismatch).
 */
function tolerationFix(sim: Simulation, groups: readonly GroupFeasibility[], pod: Pod): Record<string, unknown>[] {
  if (groups.some((g) => g.feasibleNodes > 0)) return [];
  const reasons: string[] = [];
  for (const g of groups) {
    if (g.feasibleNodes > 0 || g.reasons.length === 0) continue;
    if (!g.reasons.every((r) => untoleratedTaintOf(r.reason) !== undefined)) continue;
    for (const r of g.reasons) if (untoleratedTaintOf(r.reason)?.key !== 'node-role.kubernetes.io/control-plane') reasons.push(r.reason);
  }
  const tols = tolerationsFor(reasons, (reason) => {
    const t = untoleratedTaintOf(reason);
    if (t === undefined) return [];
    const found: Taint[] = [];
    for (const n of sim.cluster.nodes) for (const x of n.node.spec?.taints ?? []) if (x.key === t.key && (x.value ?? '') === t.value && x.effect !== 'PreferNoSchedule') found.push(x);
    return found.slice(0, 1);
  });
  if (tols.length === 0) return [];
  const probe = structuredClone(pod);
  const spec = (probe.spec ??= { containers: [] }) as { tolerations?: unknown[] };
  spec.tolerations = [...(spec.tolerations ?? []), ...tols];
  const helps = [...sim.feasibleNodes(probe).values()].some((r) => r === undefined);
  return helps ? tols : [];
}
