/**
 * The DaemonSet controller (pkg/controller/daemon, v1.32): one pod per node that should run it, pinned
 * with node affinity; ControllerRevisions for history (`kubectl rollout history ds`); RollingUpdate with
 * maxUnavailable or maxSurge, OnDelete; status counts.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, Selector } from '../../api/labels.js';
import { resources } from '../../api/resources.js';
import { compareStrings } from '../../util/compare-strings.js';
import { semanticEqual, NamespaceIndex,
  asError,
  errorMessage,
  objectKey,
  runWorkers,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type WorkQueue,
} from '../_context.js';
import { Expectations } from '../_expectations.js';
import { ClaimCandidateIndex } from '../_claim-index.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import { isPodAvailable, isPodReady, podFromTemplate } from '../_pods.js';
import { targetNodeName } from '../_scheduling.js';
import { computeHash, scaledValue } from '../deployment/_util.js';
import { eventComponents, names } from '../names.js';
import { omitZeros } from '../_status.js';
import {
  ControllerRevisionHashLabelKey,
  createPodTemplate,
  findUpdatedPodsOnNode,
  isPodUpdated,
  nodeShouldRunDaemonPod,
  daemonPodSchedulingSpec,
  daemonSchedulingInputsChanged,
  daemonSchedulingKey,
  type ShouldRunResult,
  podByCreationTimestampAndPhase,
  replaceDaemonSetPodNodeNameNodeAffinity,
  templateGeneration,
} from './_util.js';
import { deepCopy } from '../../util/deep-copy.js';

/** `BurstReplicas` of the DaemonSet controller. */
export const burstReplicas = 250;
export const failedPodsBackoffInitialMs = 1000;
export const failedPodsBackoffMaxMs = 15 * 60 * 1000;

export const reasons = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  FailedDaemonPod: 'FailedDaemonPod',
  SelectingAll: 'SelectingAll',
} as const;

export interface DaemonSetControllerOptions {
  workers?: number;
}

function selectorOf(ds: DaemonSet): Selector {
  try {
    return labelSelectorAsSelector(ds.spec?.selector);
  } catch {
    return Selector.nothing();
  }
}

function nsOf(o: { metadata?: { namespace?: string } }): string {
  return o.metadata?.namespace ?? 'default';
}

/** `getPatch`: the revision data, `{"spec":{"template":{...,"$patch":"replace"}}}`. */
export function revisionData(ds: DaemonSet): unknown {
  return { spec: { template: { ...deepCopy(ds.spec?.template ?? {}), $patch: 'replace' } } };
}

function surgeAndUnavailable(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  let maxSurge = scaledValue(ru?.maxSurge ?? 0, desired, true);
  let maxUnavailable = scaledValue(ru?.maxUnavailable ?? 1, desired, true);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  if (maxSurge < 0) maxSurge = 0;
  return { maxSurge, maxUnavailable };
}

export class DaemonSetController implements Controller {
  readonly name = names.DaemonSet;
  private readonly queue: WorkQueue<string>;
  private readonly dsInformer: Informer<DaemonSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly historyInformer: Informer<ControllerRevision>;
  private readonly recorder: EventRecorder;
  readonly expectations: Expectations;
  /**
   * `failedPodsBackoff` (flowcontrol.Backoff, 1 s doubling to 15 min) per DaemonSet and node: a node that
   * keeps failing the daemon pod (the kubelet rejects it) is not hammered with delete and create.
   */
  private readonly failedPodsBackoff = new Map<string, { delayMs: number; lastUpdate: number }>();
  private readonly claimCandidates: ClaimCandidateIndex;
  /**
   * `NodeShouldRunDaemonPod` answers per DaemonSet uid, for the scheduling fields they were computed with
   * and per Node object: the informer replaces a Node object on every change, so an answer for an object
   * stays true for as long as the object is in use, and nodes whose objects did not change are not judged
   * again at every sync.
   */
  private readonly shouldRunCache = new Map<string, ShouldRunCache>();
  /** `nodesToDaemonPods`' last answer per DaemonSet uid. */
  private readonly daemonPods = new Map<string, { version: number; resourceVersion: string | undefined; byNode: ReadonlyMap<string, readonly Pod[]> }>();
  /** Node names in name order (`manage` creates in that order); dropped when a node comes or goes. */
  private sortedNodeNames: string[] | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: DaemonSetControllerOptions = {},
  ) {
    this.queue = ctx.newQueue();
    this.dsInformer = ctx.informer<DaemonSet>(resources.daemonsets);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.nodeInformer = ctx.informer<Node>(resources.nodes);
    this.historyInformer = ctx.informer<ControllerRevision>(resources.controllerrevisions);
    this.recorder = ctx.recorder(eventComponents.daemonSet);
    this.expectations = new Expectations(ctx.clock);
    this.claimCandidates = new ClaimCandidateIndex(this.podInformer);
  }

  start(): void {
    this.dsInformer.addHandlers({
      onAdd: (ds) => this.queue.add(objectKey(ds)),
      onUpdate: (_o, ds) => this.queue.add(objectKey(ds)),
      onDelete: (ds) => {
        this.expectations.delete(objectKey(ds));
        this.shouldRunCache.delete(ds.metadata?.uid ?? '');
        this.daemonPods.delete(ds.metadata?.uid ?? '');
        this.queue.add(objectKey(ds));
      },
    });
    this.nodeInformer.addHandlers({
      onAdd: (n) => this.addNode(n),
      onUpdate: (o, n) => this.updateNode(o, n),
      onDelete: () => {
        this.sortedNodeNames = undefined;
        for (const ds of this.dsInformer.list()) this.queue.add(objectKey(ds));
      },
    });
    this.podInformer.addHandlers({
      onAdd: (p) => {
        const ds = this.owner(p);
        if (ds === undefined) {
          if (controllerRef(p.metadata) === undefined) this.enqueueMatching(p);
          return;
        }
        if (p.metadata?.deletionTimestamp !== undefined) this.expectations.deletionObserved(objectKey(ds), objectKey(p));
        else this.expectations.creationObserved(objectKey(ds));
        this.queue.add(objectKey(ds));
      },
      onUpdate: (o, p) => {
        const ds = this.owner(p);
        if (ds !== undefined) {
          if (p.metadata?.deletionTimestamp !== undefined && o.metadata?.deletionTimestamp === undefined) {
            this.expectations.deletionObserved(objectKey(ds), objectKey(p));
          }
          this.queue.add(objectKey(ds));
          const minReady = ds.spec?.minReadySeconds ?? 0;
          if (minReady > 0 && !isPodReady(o) && isPodReady(p)) this.queue.addAfter(objectKey(ds), minReady * 1000);
        } else if (controllerRef(p.metadata) === undefined) this.enqueueMatching(p);
        const oldDs = this.owner(o);
        if (oldDs !== undefined && oldDs !== ds) this.queue.add(objectKey(oldDs));
      },
      onDelete: (p) => {
        const ds = this.owner(p);
        if (ds === undefined) return;
        this.expectations.deletionObserved(objectKey(ds), objectKey(p));
        this.queue.add(objectKey(ds));
      },
    });
    this.historyInformer.addHandlers({});
    void runWorkers(this.queue, (k) => this.sync(k), this.opts.workers ?? 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `addNode`: enqueues the DaemonSets that should run a pod on the new node. */
  addNode(node: Node): void {
    this.sortedNodeNames = undefined;
    for (const ds of this.dsInformer.list()) {
      if (this.shouldRun(ds, node).shouldRun) this.queue.add(objectKey(ds));
    }
  }

  /**
   * `updateNode`: enqueues the DaemonSets whose `shouldRun` or `shouldContinueRunning` changed for the
   * node. Upstream first drops updates that `shouldIgnoreNodeUpdate` (only heartbeats and conditions that
   * stayed as they were); this drops every update that leaves the fields `NodeShouldRunDaemonPod` reads
   * unchanged, which enqueues the same DaemonSets without deep-comparing whole nodes.
   */
  updateNode(oldNode: Node, curNode: Node): void {
    if (!daemonSchedulingInputsChanged(oldNode, curNode)) return;
    for (const ds of this.dsInformer.list()) {
      const was = this.shouldRun(ds, oldNode);
      const is = this.shouldRun(ds, curNode);
      if (was.shouldRun !== is.shouldRun || was.shouldContinueRunning !== is.shouldContinueRunning) this.queue.add(objectKey(ds));
    }
  }

  /** `NodeShouldRunDaemonPod` through `shouldRunCache`. */
  private shouldRun(ds: DaemonSet, node: Node): ShouldRunResult {
    const cache = this.shouldRunCacheFor(ds);
    let r = cache.byNode.get(node);
    if (r === undefined) {
      r = nodeShouldRunDaemonPod(node, ds, cache.podSpec);
      cache.byNode.set(node, r);
    }
    return r;
  }

  private shouldRunCacheFor(ds: DaemonSet): ShouldRunCache {
    const uid = ds.metadata?.uid ?? '';
    const cached = this.shouldRunCache.get(uid);
    if (cached?.ds === ds) return cached;
    const key = daemonSchedulingKey(ds);
    if (cached?.key === key) {
      cached.ds = ds;
      return cached;
    }
    const fresh: ShouldRunCache = { ds, key, podSpec: daemonPodSchedulingSpec(ds), byNode: new WeakMap() };
    this.shouldRunCache.set(uid, fresh);
    return fresh;
  }

  /** The nodes in name order. */
  private nodesByName(): Node[] {
    this.sortedNodeNames ??= this.nodeInformer
      .list()
      .map((n) => n.metadata?.name ?? '')
      .sort(compareStrings);
    const nodes: Node[] = [];
    for (const name of this.sortedNodeNames) {
      const n = this.nodeInformer.get(name);
      if (n !== undefined) nodes.push(n);
    }
    return nodes;
  }

  private owner(p: Pod): DaemonSet | undefined {
    const ref = controllerRef(p.metadata);
    if (ref?.kind !== 'DaemonSet') return undefined;
    const ds = this.dsInformer.get(`${nsOf(p)}/${ref.name}`);
    return ds?.metadata?.uid === ref.uid ? ds : undefined;
  }

  private enqueueMatching(p: Pod): void {
    for (const ds of this.dsInformer.list()) {
      if (nsOf(ds) === nsOf(p) && selectorOf(ds).matches(p.metadata?.labels)) this.queue.add(objectKey(ds));
    }
  }

  /**
   * `getNodesToDaemonPods`: claimed pods by target node (terminal pods being deleted are left out). A sync
   * asks three times (manage, rolling update, status), as upstream's does; the answer is kept per DaemonSet
   * version for as long as its claim candidates stay the same, so with 5,000 nodes a sync walks the pods
   * once instead of three times. Callers must not change the map or its lists.
   */
  private async nodesToDaemonPods(ds: DaemonSet): Promise<ReadonlyMap<string, readonly Pod[]>> {
    const ns = nsOf(ds);
    const uid = ds.metadata?.uid ?? '';
    const version = this.claimCandidates.candidatesVersion(ns, uid);
    const kept = this.daemonPods.get(uid);
    if (kept !== undefined && kept.version === version && kept.resourceVersion === ds.metadata?.resourceVersion) return kept.byNode;
    const pods = await claimObjects(this.claimCandidates.candidates(ns, uid), {
      client: this.ctx.client,
      res: resources.pods,
      owner: ds,
      ownerApiVersion: 'apps/v1',
      ownerKind: 'DaemonSet',
      selector: selectorOf(ds),
      canAdopt: recheckOwner(this.ctx.client, resources.daemonsets, ds),
    });
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const terminal = p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
      if (terminal && p.metadata?.deletionTimestamp !== undefined) continue;
      const n = targetNodeName(p);
      if (n === undefined) continue;
      const onNode = byNode.get(n);
      if (onNode === undefined) byNode.set(n, [p]);
      else onNode.push(p);
    }
    this.daemonPods.set(uid, { version, resourceVersion: ds.metadata?.resourceVersion, byNode });
    return byNode;
  }

  /** `constructHistory`: the current revision (created or bumped) and its hash; old unused revisions trimmed. */
  private async constructHistory(ds: DaemonSet): Promise<{ hash: string; old: ControllerRevision[] }> {
    const sel = selectorOf(ds);
    const histories = await claimObjects(
      this.historyInformer.byIndex(NamespaceIndex, nsOf(ds)),
      {
        client: this.ctx.client,
        res: resources.controllerrevisions,
        owner: ds,
        ownerApiVersion: 'apps/v1',
        ownerKind: 'DaemonSet',
        selector: sel,
        canAdopt: recheckOwner(this.ctx.client, resources.daemonsets, ds),
      },
    );
    const data = revisionData(ds);
    const current = histories.filter((h) => semanticEqual(h.data, data)).sort((a, b) => b.revision - a.revision);
    const old = histories.filter((h) => !semanticEqual(h.data, data));
    const maxRevision = histories.reduce((m, h) => Math.max(m, h.revision), 0);
    let cur = current[0];
    for (const dup of current.slice(1)) {
      await this.ctx.client.delete(resources.controllerrevisions, dup.metadata?.name ?? '', { namespace: nsOf(ds) }).catch((e: unknown) => {
        if (!isNotFound(e)) throw asError(e);
      });
    }
    if (cur === undefined) {
      let collision = ds.status?.collisionCount;
      for (let attempt = 0; attempt < 5 && cur === undefined; attempt++) {
        const hash = computeHash(ds.spec?.template, collision);
        const rev: ControllerRevision = {
          apiVersion: 'apps/v1',
          kind: 'ControllerRevision',
          metadata: {
            name: `${ds.metadata?.name ?? ''}-${hash}`,
            namespace: nsOf(ds),
            labels: { ...(ds.spec?.template.metadata?.labels ?? {}), [ControllerRevisionHashLabelKey]: hash },
            ...(ds.metadata?.annotations !== undefined ? { annotations: { ...ds.metadata.annotations } } : {}),
            ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
          },
          data: revisionData(ds) as NonNullable<ControllerRevision['data']>,
          revision: maxRevision + 1,
        };
        try {
          cur = await this.ctx.client.create<ControllerRevision>(resources.controllerrevisions, rev, { namespace: nsOf(ds) });
        } catch (e) {
          if (!isAlreadyExists(e)) throw e;
          const existing = await this.ctx.client.get<ControllerRevision>(resources.controllerrevisions, rev.metadata?.name ?? '', { namespace: nsOf(ds) });
          if (semanticEqual(existing.data, data) && controllerRef(existing.metadata)?.uid === ds.metadata?.uid) cur = existing;
          else collision = (collision ?? 0) + 1;
        }
      }
      if (collision !== ds.status?.collisionCount && collision !== undefined) {
        await this.ctx.client.update(resources.daemonsets, { ...ds, status: { ...(ds.status ?? {}), collisionCount: collision } }, { subresource: 'status', namespace: nsOf(ds) });
      }
      if (cur === undefined) throw new Error(`could not create a ControllerRevision for DaemonSet ${objectKey(ds)}`);
    } else if (cur.revision < maxRevision) {
      cur = await this.ctx.client.update<ControllerRevision>(resources.controllerrevisions, { ...cur, revision: maxRevision + 1 }, { namespace: nsOf(ds) });
    }
    return { hash: cur.metadata?.labels?.[ControllerRevisionHashLabelKey] ?? '', old };
  }

  /** `syncDaemonSet`. */
  async sync(key: string): Promise<void> {
    const cached = this.dsInformer.get(key);
    if (cached === undefined) {
      this.expectations.delete(key);
      return;
    }
    const ds = deepCopy(cached);
    const sel = ds.spec?.selector;
    if (sel !== undefined && Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
      this.recorder.event(ds, 'Warning', reasons.SelectingAll, 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    if (ds.metadata?.deletionTimestamp !== undefined) return;
    const { hash, old } = await this.constructHistory(ds);
    if (!this.expectations.satisfied(key)) {
      await this.updateStatus(ds, hash, false);
      return;
    }
    await this.manage(ds, hash);
    if (this.expectations.satisfied(key) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      await this.rollingUpdate(ds, hash);
    }
    await this.cleanupHistory(ds, old);
    await this.updateStatus(ds, hash, true);
  }

  /** `manage`: which nodes need a pod, which pods must go. */
  private async manage(ds: DaemonSet, hash: string): Promise<void> {
    const byNode = await this.nodesToDaemonPods(ds);
    const needing: string[] = [];
    const toDelete: string[] = [];
    const allowsSurge = (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && surgeAndUnavailable(ds, 1).maxSurge > 0;
    const nodes = this.nodesByName();
    const known = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      known.add(name);
      const { shouldRun, shouldContinueRunning } = this.shouldRun(ds, node);
      const pods = byNode.get(name);
      if (shouldRun && pods === undefined) {
        needing.push(name);
      } else if (shouldContinueRunning) {
        const running: Pod[] = [];
        for (const p of pods ?? []) {
          if (p.metadata?.deletionTimestamp !== undefined) continue;
          if (p.status?.phase === 'Failed') {
            const backoffKey = `${objectKey(ds)}/${name}`;
            const now = this.ctx.clock.now();
            const b = this.failedPodsBackoff.get(backoffKey);
            if (b !== undefined && now - b.lastUpdate < b.delayMs) {
              this.queue.addAfter(objectKey(ds), b.delayMs - (now - b.lastUpdate));
              continue;
            }
            const expired = b === undefined || now - b.lastUpdate > 2 * failedPodsBackoffMaxMs;
            this.failedPodsBackoff.set(backoffKey, { delayMs: expired ? failedPodsBackoffInitialMs : Math.min(b.delayMs * 2, failedPodsBackoffMaxMs), lastUpdate: now });
            this.recorder.event(ds, 'Warning', reasons.FailedDaemonPod, `Found failed daemon pod ${nsOf(p)}/${p.metadata?.name ?? ''} on node ${name}, will try to kill it`);
            toDelete.push(p.metadata?.name ?? '');
          } else if (p.status?.phase === 'Succeeded') toDelete.push(p.metadata?.name ?? '');
          else running.push(p);
        }
        running.sort(podByCreationTimestampAndPhase);
        if (!allowsSurge) {
          for (const p of running.slice(1)) toDelete.push(p.metadata?.name ?? '');
        } else {
          let oldestNew: Pod | undefined;
          let oldestOld: Pod | undefined;
          for (const p of running) {
            if (p.metadata?.labels?.[ControllerRevisionHashLabelKey] === hash) {
              if (oldestNew === undefined) {
                oldestNew = p;
                continue;
              }
            } else if (oldestOld === undefined) {
              oldestOld = p;
              continue;
            }
            toDelete.push(p.metadata?.name ?? '');
          }
          if (oldestNew !== undefined && oldestOld !== undefined && (!isPodReady(oldestOld) || isPodReady(oldestNew))) {
            toDelete.push(oldestOld.metadata?.name ?? '');
          }
        }
      } else if (pods !== undefined) {
        for (const p of pods) if (p.metadata?.deletionTimestamp === undefined) toDelete.push(p.metadata?.name ?? '');
      }
    }
    // Pods pinned to nodes that no longer exist.
    for (const [n, pods] of byNode) {
      if (known.has(n)) continue;
      for (const p of pods) if (p.metadata?.deletionTimestamp === undefined) toDelete.push(p.metadata?.name ?? '');
    }
    await this.syncNodes(ds, toDelete, needing, hash);
  }

  /** `syncNodes`: creates (slow start, burst 250) and deletes pods, with expectations. */
  private async syncNodes(ds: DaemonSet, podsToDelete: string[], nodesNeeding: string[], hash: string): Promise<void> {
    const key = objectKey(ds);
    const ns = nsOf(ds);
    const createDiff = Math.min(nodesNeeding.length, burstReplicas);
    const deleteDiff = Math.min(podsToDelete.length, burstReplicas);
    if (createDiff === 0 && deleteDiff === 0) return;
    const deletions = podsToDelete.slice(0, deleteDiff);
    this.expectations.expect(
      key,
      createDiff,
      deletions.map((n) => `${ns}/${n}`),
    );
    const template = createPodTemplate(ds.spec?.template, templateGeneration(ds), hash);
    const ref = newControllerRef(ds, 'apps/v1', 'DaemonSet');
    const errors: unknown[] = [];
    let pos = 0;
    let batch = Math.min(createDiff, 1);
    while (pos < createDiff) {
      const slice = nodesNeeding.slice(pos, pos + batch);
      const before = errors.length;
      await Promise.all(
        slice.map(async (node) => {
          const pod = podFromTemplate(template, ns, ref);
          const spec = pod.spec as { affinity?: unknown };
          spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(pod.spec?.affinity, node);
          try {
            const created = await this.ctx.client.create<Pod>(resources.pods, pod, { namespace: ns, answer: 'metadata' });
            this.recorder.event(ds, 'Normal', reasons.SuccessfulCreate, `Created pod: ${created.metadata?.name ?? ''}`);
          } catch (e) {
            this.expectations.creationObserved(key);
            this.recorder.event(ds, 'Warning', reasons.FailedCreate, `Error creating: ${errorMessage(e)}`);
            errors.push(e);
          }
        }),
      );
      pos += slice.length;
      const skipped = createDiff - pos;
      if (errors.length > before && skipped > 0) {
        this.expectations.lowerCreations(key, skipped);
        break;
      }
      batch = Math.min(2 * batch, createDiff - pos);
    }
    await Promise.all(
      deletions.map(async (name) => {
        try {
          await this.ctx.client.delete(resources.pods, name, { namespace: ns });
          this.recorder.event(ds, 'Normal', reasons.SuccessfulDelete, `Deleted pod: ${name}`);
        } catch (e) {
          this.expectations.deletionObserved(key, `${ns}/${name}`);
          if (isNotFound(e)) return;
          this.recorder.event(ds, 'Warning', reasons.FailedDelete, `Error deleting: ${errorMessage(e)}`);
          errors.push(e);
        }
      }),
    );
    if (errors[0] !== undefined) throw asError(errors[0]);
  }

  /** `rollingUpdate`. */
  private async rollingUpdate(ds: DaemonSet, hash: string): Promise<void> {
    const byNode = await this.nodesToDaemonPods(ds);
    const nodes = this.nodesByName();
    // `updatedDesiredNodeCounts`: a node that should run the pod and has none takes part with no pods.
    let desired = 0;
    const withoutPods = new Set<string>();
    for (const node of nodes) {
      if (!this.shouldRun(ds, node).shouldRun) continue;
      desired++;
      const n = node.metadata?.name ?? '';
      if (!byNode.has(n)) withoutPods.add(n);
    }
    const { maxSurge, maxUnavailable } = surgeAndUnavailable(ds, desired);
    const now = this.ctx.clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const gen = templateGeneration(ds);
    const entries = entriesByNodeName(byNode, withoutPods, nodes);
    if (maxSurge === 0) {
      let numUnavailable = 0;
      const allowed: string[] = [];
      const candidates: string[] = [];
      for (const [, pods] of entries) {
        const r = findUpdatedPodsOnNode(pods, hash, gen);
        if (!r.ok) {
          numUnavailable++;
          continue;
        }
        if ((r.oldPod === undefined && r.newPod === undefined) || (r.oldPod !== undefined && r.newPod !== undefined)) numUnavailable++;
        else if (r.newPod !== undefined) {
          if (!isPodAvailable(r.newPod, minReady, now)) numUnavailable++;
        } else if (r.oldPod !== undefined) {
          if (!isPodAvailable(r.oldPod, minReady, now)) allowed.push(r.oldPod.metadata?.name ?? '');
          else if (numUnavailable >= maxUnavailable) continue;
          else candidates.push(r.oldPod.metadata?.name ?? '');
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      await this.syncNodes(ds, [...allowed, ...candidates.slice(0, remaining)], [], hash);
      return;
    }
    const oldToDelete: string[] = [];
    const shouldNotRunToDelete: string[] = [];
    const candidateNew: string[] = [];
    const allowedNew: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    for (const [nodeName, pods] of entries) {
      const r = findUpdatedPodsOnNode(pods, hash, gen);
      if (!r.ok) {
        numSurge++;
        continue;
      }
      if (r.oldPod !== undefined) {
        if (isPodAvailable(r.oldPod, minReady, now)) numAvailable++;
      } else if (r.newPod !== undefined && isPodAvailable(r.newPod, minReady, now)) numAvailable++;
      const node = this.nodeInformer.get(nodeName);
      if (r.oldPod === undefined) continue;
      if (r.newPod === undefined) {
        const shouldRun = node !== undefined && this.shouldRun(ds, node).shouldRun;
        if (!isPodAvailable(r.oldPod, minReady, now)) {
          if (!shouldRun) oldToDelete.push(r.oldPod.metadata?.name ?? '');
          else allowedNew.push(nodeName);
        } else if (!shouldRun) shouldNotRunToDelete.push(r.oldPod.metadata?.name ?? '');
        else if (numSurge < maxSurge) candidateNew.push(nodeName);
        continue;
      }
      if (!isPodAvailable(r.newPod, minReady, now)) {
        numSurge++;
        continue;
      }
      oldToDelete.push(r.oldPod.metadata?.name ?? '');
    }
    let deletable = numAvailable - desired;
    if (deletable > 0) {
      deletable = Math.min(deletable, shouldNotRunToDelete.length);
      oldToDelete.push(...shouldNotRunToDelete.slice(0, deletable));
    }
    const remainingSurge = Math.min(Math.max(0, maxSurge - numSurge), candidateNew.length);
    await this.syncNodes(ds, oldToDelete, [...allowedNew, ...candidateNew.slice(0, remainingSurge)], hash);
  }

  /** `cleanupHistory`: keeps revisionHistoryLimit old revisions, never one a live pod still uses. */
  private async cleanupHistory(ds: DaemonSet, old: ControllerRevision[]): Promise<void> {
    const limit = ds.spec?.revisionHistoryLimit ?? 10;
    const toKill = old.length - limit;
    if (toKill <= 0) return;
    const byNode = await this.nodesToDaemonPods(ds);
    const live = new Set<string>();
    for (const pods of byNode.values()) for (const p of pods) live.add(p.metadata?.labels?.[ControllerRevisionHashLabelKey] ?? '');
    const sorted = [...old].sort((a, b) => a.revision - b.revision);
    let killed = 0;
    for (const h of sorted) {
      if (killed >= toKill) break;
      if (live.has(h.metadata?.labels?.[ControllerRevisionHashLabelKey] ?? '')) continue;
      try {
        await this.ctx.client.delete(resources.controllerrevisions, h.metadata?.name ?? '', { namespace: nsOf(ds) });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      killed++;
    }
  }

  /** `updateDaemonSetStatus`. */
  private async updateStatus(ds: DaemonSet, hash: string, updateObservedGen: boolean): Promise<void> {
    const byNode = await this.nodesToDaemonPods(ds);
    const now = this.ctx.clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const gen = templateGeneration(ds);
    let desired = 0;
    let current = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    let misscheduled = 0;
    for (const node of this.nodeInformer.list()) {
      const { shouldRun } = this.shouldRun(ds, node);
      const pods = byNode.get(node.metadata?.name ?? '') ?? [];
      const scheduled = pods.length > 0;
      if (shouldRun) {
        desired++;
        if (!scheduled) continue;
        current++;
        const pod = pods.length === 1 ? pods[0] : [...pods].sort(podByCreationTimestampAndPhase)[0];
        if (pod === undefined) continue;
        if (isPodReady(pod)) {
          ready++;
          if (isPodAvailable(pod, minReady, now)) available++;
        }
        if (isPodUpdated(pod, hash, gen)) updated++;
      } else if (scheduled) misscheduled++;
    }
    const status: DaemonSetStatus = {
      ...(ds.status ?? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }),
      desiredNumberScheduled: desired,
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      updatedNumberScheduled: updated,
      numberAvailable: available,
      numberUnavailable: desired - available,
    };
    if (updateObservedGen) status.observedGeneration = ds.metadata?.generation ?? 0;
    const compact = omitZeros(status, ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'observedGeneration']);
    if (!semanticEqual(compact, ds.status ?? {})) {
      try {
        await this.ctx.client.update(resources.daemonsets, { ...ds, status: compact }, { subresource: 'status', namespace: nsOf(ds) });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (minReady > 0 && ready !== available) this.queue.addAfter(objectKey(ds), minReady * 1000);
  }
}

interface ShouldRunCache {
  /** The DaemonSet object last checked against `key`. */
  ds: DaemonSet;
  key: string;
  podSpec: ReturnType<typeof daemonPodSchedulingSpec>;
  byNode: WeakMap<Node, ShouldRunResult>;
}

/**
 * `byNode`'s entries and the nodes `withoutPods` (with no pods) in node-name order. `nodes` is already in
 * that order: when every entry is on a known node (the usual case) the order is taken from it instead of
 * sorting again.
 */
function entriesByNodeName(byNode: ReadonlyMap<string, readonly Pod[]>, withoutPods: ReadonlySet<string>, nodes: readonly Node[]): [string, readonly Pod[]][] {
  const out: [string, readonly Pod[]][] = [];
  let onKnownNodes = 0;
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    const pods = byNode.get(name);
    if (pods !== undefined) {
      out.push([name, pods]);
      onKnownNodes++;
    } else if (withoutPods.has(name)) out.push([name, []]);
  }
  if (onKnownNodes === byNode.size) return out;
  const all: [string, readonly Pod[]][] = [...byNode.entries()];
  for (const name of withoutPods) all.push([name, []]);
  return all.sort(([a], [b]) => compareStrings(a, b));
}

export function create(ctx: ControllerContext, opts: DaemonSetControllerOptions = {}): DaemonSetController {
  return new DaemonSetController(ctx, opts);
}
