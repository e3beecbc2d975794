/**
 * One pod's life on a simulated node: the kubelet's `SyncPod` loop reduced to a state machine over simulated
 * time. `sync(nowMs)` advances the pod as far as it can at `nowMs`, records events through the context, and
 * answers the pod status to report and when to be called again. Nothing here touches the API: the node agent
 * feeds pod updates in and writes statuses, events and the final delete out.
 *
 * Order of a start, as the kubelet does it: admission -> network readiness (not for hostNetwork pods) ->
 * sandbox (RuntimeClass handler) -> init containers one by one -> containers in order, each
 * pull (serialized per node) -> create -> start; readiness after the readiness probe's initial delay;
 * restarts with CrashLoopBackOff (10 s doubling to 5 min); deletion: stop (`Killing`), wait for the processes
 * (at most the grace period), then report the final status for the agent to delete the pod.
 */
import { randomBytes } from 'node:crypto';
import type { Container, ContainerState, ContainerStatus, Node, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { podQOSClass } from '../../api/qos.js';
import { Backoff, formatGoDuration } from '../runtime/backoff.js';
import type { ImageManager, KubeletEvent, PullInProgress, PullPolicy } from '../runtime/image-manager.js';
import type { StoredImage } from '../runtime/image-store.js';
import { checkRuntimeHandler, FailedCreatePodSandBox, runtimeClassNotFoundMessage } from '../runtime/sandbox.js';
import { formatPlatform } from '../runtime/platform.js';
import { admitPod, rejectionMessage } from './admission.js';
import { cniNotInitializedMessage, type SimulatedNodeSpec } from './node-status.js';
import { behaviourOf, type SimulatedBehaviour } from './simulate.js';
import { metav1Time } from '../../util/metav1-time.js';

/** Container event reasons (`pkg/kubelet/events/event.go`). */
export const containerEventReasons = {
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  BackOffStartContainer: 'BackOff',
  NetworkNotReady: 'NetworkNotReady',
} as const;

/** Waiting reasons (`pkg/kubelet/kubelet_pods.go`, `pkg/kubelet/container`). */
export const waitingReasons = {
  ContainerCreating: 'ContainerCreating',
  PodInitializing: 'PodInitializing',
  CrashLoopBackOff: 'CrashLoopBackOff',
} as const;

/**
 * containerd's StartContainer error when HCS refuses a Windows image built for another Windows build
 * (process isolation): `hcs::CreateComputeSystem <container id>: The container operating system does not
 * match the host operating system.` (HRESULT 0xc0370101).
 */
export function windowsOsMismatchError(containerId: string): string {
  return `failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem ${containerId}: The container operating system does not match the host operating system.: unknown`;
}

/** Sync loop timings; all configurable for tests and large simulations. */
export interface PodWorkerTimings {
  /** Retry after a failed sync step (sandbox creation, network wait): the pod worker's back-off, 10 s. */
  syncRetryMs: number;
  /** Delay before the PLEG-triggered resync after a container event (shows ImagePullBackOff after ErrImagePull). */
  plegResyncMs: number;
  /** How long a simulated process takes to exit after SIGTERM (bounded by the grace period). */
  stopMs: number;
}

export const defaultPodWorkerTimings: PodWorkerTimings = { syncRetryMs: 10_000, plegResyncMs: 1_000, stopMs: 300 };

/** What the worker needs from its node. */
export interface PodWorkerContext {
  readonly spec: SimulatedNodeSpec;
  /** The node as last registered/read (labels, taints, allocatable for admission). */
  node(): Node;
  readonly imageManager: ImageManager;
  /** Crash-loop back-off shared by the node's pods (10 s doubling to 300 s). */
  readonly crashBackoff: Backoff;
  networkReady(): boolean;
  /** The handler of a RuntimeClass, or undefined when it does not exist. */
  runtimeClassHandler(name: string): string | undefined;
  /** Pods admitted on this node other than `uid`, not terminal (for admission). */
  admittedPods(exceptUid: string): Pod[];
  allocatePodIP(uid: string): string;
  releasePodIP(uid: string): void;
  /** Records an event about the pod (fire-and-forget); `fieldPath` names a container (`spec.containers{web}`). */
  event(pod: Pod, e: KubeletEvent, fieldPath?: string): void;
  readonly timings: PodWorkerTimings;
}

type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

type SimState =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'pulling'; pull: PullInProgress }
  | { kind: 'running'; startedAt: number; readyAt: number | undefined; exitAt: number | undefined; exitCode: number; exitLog?: string }
  | { kind: 'terminated'; exitCode: number; reason: string; message?: string; startedAt: number; finishedAt: number };

/** One line of a simulated container's output. */
export interface LogLine {
  readonly atMs: number;
  readonly text: string;
}

interface SimContainer {
  readonly name: string;
  spec: Container;
  readonly init: boolean;
  readonly sidecar: boolean;
  state: SimState;
  lastTermination?: Extract<SimState, { kind: 'terminated' }>;
  restartCount: number;
  /** A new instance is to be started (first start or restart). */
  needsStart: boolean;
  everStarted: boolean;
  containerID?: string;
  image?: StoredImage;
  logs: LogLine[];
  previousLogs: LogLine[];
}

export interface SyncResult {
  readonly status: PodStatus;
  /** When to call `sync` again; undefined: only on a pod update or a node change. */
  readonly nextSyncMs: number | undefined;
  /** Deletion requested and every container stopped: the agent writes the status, then deletes the pod. */
  readonly readyForDeletion: boolean;
}

/**
 * The container's mounts as 1.32 kubelets report them (`RecursiveReadOnlyMounts`, beta and on): each mount's
 * name, path and read-only flag, and for a read-only mount its recursive mode, `Disabled` here: containerd 1.7
 * reports no runtime handler features, so recursive read-only is never available (a mount asking for it
 * `IfPossible` gets Disabled; kubelet logs an error for one asking `Enabled` and reports Disabled as well).
 */
function volumeMountStatuses(c: Container): Pick<ContainerStatus, 'volumeMounts'> {
  const mounts = c.volumeMounts ?? [];
  if (mounts.length === 0) return {};
  return {
    volumeMounts: mounts.map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      ...(m.readOnly === true ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
    })),
  };
}

/** `format.Pod`: `name_namespace(uid)`. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

export class PodWorker {
  private pod: Pod;
  private admitted = false;
  private rejection: { reason: string; message: string } | undefined;
  private startTime: number | undefined;
  private sandboxReady = false;
  private podIP: string | undefined;
  private readonly containers: SimContainer[];
  private terminationStartedAt: number | undefined;
  private stopAt: number | undefined;
  private killedBySigkill = false;
  private finished = false;
  /**
   * `phase()` as of the last change: the containers' states change only in `sync` and `update`, while every
   * other pod of the node asks whether this one is terminal each time the kubelet admits a pod.
   */
  private phaseMemo: PodPhase | undefined;
  private syncing = false;

  constructor(private readonly ctx: PodWorkerContext, pod: Pod) {
    this.pod = pod;
    const init = (pod.spec?.initContainers ?? []).map((c) => this.newContainer(c, true));
    const regular = (pod.spec?.containers ?? []).map((c) => this.newContainer(c, false));
    this.containers = [...init, ...regular];
    this.resumeFrom(pod.status);
  }

  /**
   * A pod that already ran on this node before the agent (re)started: as after a node reboot, the old
   * containers are gone, so the next instances count on from the reported restart counts, with a last state
   * `Unknown`/255 for containers that were running; init containers that completed stay completed.
   */
  private resumeFrom(status: PodStatus | undefined): void {
    if (status?.startTime !== undefined) this.startTime = Date.parse(status.startTime);
    const previous = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
    for (const c of this.containers) {
      const prev = previous.find((p) => p.name === c.name);
      if (prev?.containerID === undefined || prev.containerID === '') continue;
      c.everStarted = true;
      c.restartCount = prev.restartCount;
      c.containerID = prev.containerID;
      const term = prev.state?.terminated;
      if (c.init && !c.sidecar && term?.exitCode === 0) {
        c.state = { kind: 'terminated', exitCode: 0, reason: term.reason ?? 'Completed', startedAt: Date.parse(term.startedAt ?? '') || 0, finishedAt: Date.parse(term.finishedAt ?? '') || 0 };
        c.needsStart = false;
        continue;
      }
      const startedAt = Date.parse(prev.state?.running?.startedAt ?? term?.startedAt ?? '') || 0;
      c.lastTermination = { kind: 'terminated', exitCode: 255, reason: 'Unknown', startedAt, finishedAt: startedAt };
    }
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  get current(): Pod {
    return this.pod;
  }

  /** Terminal (Succeeded/Failed/rejected) or deleted. */
  get isTerminal(): boolean {
    const phase = this.phase();
    return phase === 'Succeeded' || phase === 'Failed' || this.finished;
  }

  /** The pod as a network plugin sees it: has at least one running container. */
  get hasRunningContainer(): boolean {
    return this.containers.some((c) => c.state.kind === 'running');
  }

  /** A newer version of the pod from the watch. Only metadata (deletion, annotations) and images may change. */
  update(pod: Pod, nowMs: number): void {
    const images = new Map((pod.spec?.containers ?? []).concat(pod.spec?.initContainers ?? []).map((c) => [c.name, c]));
    for (const c of this.containers) {
      const next = images.get(c.name);
      if (next !== undefined && next.image !== c.spec.image) {
        c.spec = next;
        // An image change restarts the container (the kubelet kills it for a spec hash change).
        if (c.state.kind === 'running') this.killForRestart(c, nowMs);
      } else if (next !== undefined) c.spec = next;
    }
    this.pod = pod;
    this.phaseMemo = undefined;
  }

  /** Simulated log lines of a container (`previous` for the last terminated instance). */
  logs(container: string, previous = false): string[] | undefined {
    return this.logLines(container, previous)?.map((l) => l.text);
  }

  /** Log lines with the time each was written. */
  logLines(container: string, previous = false): LogLine[] | undefined {
    const c = this.containers.find((x) => x.name === container);
    if (c === undefined) return undefined;
    return previous ? c.previousLogs : c.logs;
  }

  /** Names of the pod's containers (init first). */
  containerNames(): string[] {
    return this.containers.map((c) => c.name);
  }

  private newContainer(spec: Container, init: boolean): SimContainer {
    return {
      name: spec.name,
      spec,
      init,
      sidecar: init && spec.restartPolicy === 'Always',
      state: { kind: 'waiting', reason: init ? waitingReasons.ContainerCreating : waitingReasons.ContainerCreating },
      restartCount: 0,
      needsStart: true,
      everStarted: false,
      logs: [],
      previousLogs: [],
    };
  }

  /** Records an event about the pod, or about one of its containers (`involvedObject.fieldPath`). */
  private emit(e: KubeletEvent, c?: SimContainer): void {
    this.ctx.event(this.pod, e, c === undefined ? undefined : `${c.init ? 'spec.initContainers' : 'spec.containers'}{${c.name}}`);
  }

  private get hostNetwork(): boolean {
    return this.pod.spec?.hostNetwork === true;
  }

  /** Advances the pod to `nowMs`. */
  sync(nowMs: number): SyncResult {
    // Forgotten before the states change; `phase()` remembers nothing until the sync is over.
    this.phaseMemo = undefined;
    this.syncing = true;
    try {
      return this.advance(nowMs);
    } finally {
      this.syncing = false;
    }
  }

  private advance(nowMs: number): SyncResult {
    let next: number | undefined;
    const deleting = this.pod.metadata?.deletionTimestamp !== undefined && this.pod.metadata.deletionTimestamp !== null;
    if (this.rejection !== undefined) return this.result(nowMs, undefined, deleting);
    if (!this.admitted) {
      if (deleting) {
        this.finished = true;
        return this.result(nowMs, undefined, true);
      }
      const verdict = admitPod(this.pod, this.ctx.node(), this.ctx.admittedPods(this.uid), this.ctx.spec.os);
      if (!verdict.admit) {
        this.rejection = { reason: verdict.reason, message: verdict.message };
        this.emit({ type: 'Warning', reason: verdict.reason, message: verdict.message });
        return this.result(nowMs, undefined, false);
      }
      this.admitted = true;
      this.startTime ??= nowMs;
    }
    if (deleting) return this.syncTermination(nowMs);
    if (this.isTerminal) return this.result(nowMs, undefined, false);

    if (!this.hostNetwork && !this.ctx.networkReady()) {
      this.emit({ type: 'Warning', reason: containerEventReasons.NetworkNotReady, message: `network is not ready: ${cniNotInitializedMessage}` });
      return this.result(nowMs, nowMs + this.ctx.timings.syncRetryMs, false);
    }

    if (!this.sandboxReady) {
      const className = this.pod.spec?.runtimeClassName;
      let handler = '';
      if (className !== undefined && className !== '') {
        const h = this.ctx.runtimeClassHandler(className);
        if (h === undefined) {
          this.emit({ type: 'Warning', reason: FailedCreatePodSandBox, message: runtimeClassNotFoundMessage(className) });
          return this.result(nowMs, nowMs + this.ctx.timings.syncRetryMs, false);
        }
        handler = h;
      }
      const check = checkRuntimeHandler(handler, this.ctx.spec.runtimeHandlers);
      if (!check.ok) {
        this.emit({ type: 'Warning', reason: FailedCreatePodSandBox, message: check.message });
        return this.result(nowMs, nowMs + this.ctx.timings.syncRetryMs, false);
      }
      this.sandboxReady = true;
      this.podIP = this.hostNetwork ? this.ctx.spec.internalIP : this.ctx.allocatePodIP(this.uid);
    }

    // Init containers, one at a time; sidecars only need to have started.
    for (const c of this.containers.filter((x) => x.init)) {
      next = min(next, this.step(c, nowMs));
      if (c.sidecar) {
        if (c.state.kind !== 'running' && !c.everStarted) return this.result(nowMs, next, false);
        continue;
      }
      if (c.state.kind === 'terminated' && c.state.exitCode === 0) continue;
      return this.result(nowMs, next, false);
    }
    for (const c of this.containers.filter((x) => !x.init)) {
      next = min(next, this.step(c, nowMs));
      // A pull in progress blocks the rest of this sync, as EnsureImageExists blocks SyncPod.
      if (c.state.kind === 'pulling') break;
    }
    return this.result(nowMs, next, false);
  }

  /** One container at `nowMs`; answers when it next needs attention. */
  private step(c: SimContainer, nowMs: number): number | undefined {
    const s = c.state;
    if (s.kind === 'running') {
      if (s.exitAt !== undefined && s.exitAt <= nowMs) {
        this.exitContainer(c, s.exitCode, s.exitAt, s.exitLog);
        return this.step(c, nowMs);
      }
      return min(s.exitAt, s.readyAt !== undefined && s.readyAt > nowMs ? s.readyAt : undefined);
    }
    if (s.kind === 'terminated') {
      if (!this.shouldRestart(c, s.exitCode)) return undefined;
      // The kubelet notices the exit through PLEG and restarts on its next sync.
      const noticedAt = s.finishedAt + this.ctx.timings.plegResyncMs;
      if (noticedAt > nowMs) return noticedAt;
      c.needsStart = true;
      c.lastTermination = s;
      c.state = { kind: 'waiting', reason: waitingReasons.CrashLoopBackOff };
      return this.step(c, nowMs);
    }
    if (s.kind === 'pulling') {
      if (s.pull.doneAtMs > nowMs) return s.pull.doneAtMs;
      const out = this.ctx.imageManager.completePull(s.pull);
      for (const e of out.events) this.emit(e, c);
      if (out.kind === 'error') {
        this.emit({ type: 'Warning', reason: containerEventReasons.FailedToCreateContainer, message: `Error: ${out.reason}` }, c);
        c.state = { kind: 'waiting', reason: out.reason, message: out.message };
        return nowMs + this.ctx.timings.plegResyncMs;
      }
      return this.createAndStart(c, out.image, nowMs);
    }
    // waiting
    if (!c.needsStart) return undefined;
    if (c.lastTermination !== undefined) {
      const key = this.backoffKey(c);
      const finishedAt = c.lastTermination.finishedAt;
      if (this.ctx.crashBackoff.isInBackOffSince(key, finishedAt, nowMs)) {
        const delay = this.ctx.crashBackoff.get(key);
        this.emit({ type: 'Warning', reason: containerEventReasons.BackOffStartContainer, message: `Back-off restarting failed container ${c.name} in pod ${formatPod(this.pod)}` }, c);
        c.state = {
          kind: 'waiting',
          reason: waitingReasons.CrashLoopBackOff,
          message: `back-off ${formatGoDuration(delay)} restarting failed container=${c.name} pod=${formatPod(this.pod)}`,
        };
        return finishedAt + delay;
      }
      this.ctx.crashBackoff.next(key, finishedAt);
    }
    const ensure = this.ctx.imageManager.ensureImageExists(this.uid, c.spec.image ?? '', c.spec.imagePullPolicy as PullPolicy | undefined, nowMs);
    for (const e of ensure.events) this.emit(e, c);
    if (ensure.kind === 'error') {
      this.emit({ type: 'Warning', reason: containerEventReasons.FailedToCreateContainer, message: `Error: ${ensure.reason}` }, c);
      c.state = { kind: 'waiting', reason: ensure.reason, message: ensure.message };
      const retry = this.ctx.imageManager.retryAtMs(this.uid, c.spec.image ?? '');
      return retry !== undefined && retry > nowMs ? retry : nowMs + this.ctx.timings.syncRetryMs;
    }
    if (ensure.kind === 'pulling') {
      c.state = { kind: 'pulling', pull: ensure.pull };
      return ensure.pull.doneAtMs;
    }
    return this.createAndStart(c, ensure.image, nowMs);
  }

  private shouldRestart(c: SimContainer, exitCode: number): boolean {
    if (c.sidecar) return true;
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    // Init containers are retried only when they fail (Always behaves as OnFailure for them).
    if (c.init) return exitCode !== 0 && policy !== 'Never';
    if (policy === 'Always') return true;
    if (policy === 'OnFailure') return exitCode !== 0;
    return false;
  }

  private backoffKey(c: SimContainer): string {
    return `${this.pod.metadata?.name ?? ''}_${this.pod.metadata?.namespace ?? ''}_${this.uid}_${c.name}`;
  }

  private createAndStart(c: SimContainer, image: StoredImage, nowMs: number): number | undefined {
    if (c.everStarted) c.restartCount++;
    c.needsStart = false;
    c.image = image;
    c.containerID = `containerd://${randomBytes(32).toString('hex')}`;
    if (c.everStarted) c.previousLogs = c.logs;
    c.logs = [];
    this.emit({ type: 'Normal', reason: containerEventReasons.CreatedContainer, message: `Created container: ${c.name}` }, c);
    const failure = image.image.startFailure;
    if (failure?.kind === 'osMismatch') {
      const message = windowsOsMismatchError(c.containerID.slice('containerd://'.length));
      this.emit({ type: 'Warning', reason: containerEventReasons.FailedToStartContainer, message: `Error: ${message}` }, c);
      c.everStarted = true;
      c.state = { kind: 'terminated', exitCode: 128, reason: 'StartError', message, startedAt: 0, finishedAt: nowMs };
      c.logs.push({ atMs: nowMs, text: `hcs: The container operating system does not match the host operating system. (image ${image.image.ref.normalized} is built for ${image.image.platform.osVersion ?? 'another build'}, node ${this.ctx.spec.name} runs ${this.ctx.spec.kernelVersion ?? this.ctx.spec.windowsBuild ?? ''})` });
      return nowMs + this.ctx.timings.plegResyncMs;
    }
    this.emit({ type: 'Normal', reason: containerEventReasons.StartedContainer, message: `Started container ${c.name}` }, c);
    c.everStarted = true;
    const b: SimulatedBehaviour = behaviourOf(this.pod, c.name, c.init && !c.sidecar);
    const platform = image.image.platform;
    if (failure?.kind === 'execFormat') {
      // The entrypoint is a binary for another architecture: the process never runs, the exec fails.
      c.state = { kind: 'running', startedAt: nowMs, readyAt: undefined, exitAt: nowMs + 100, exitCode: 255, exitLog: `exec ${entrypointOf(c.spec)}: exec format error` };
      return nowMs + 100;
    }
    const at = nowMs;
    c.logs.push(
      { atMs: at, text: `kubemix simulated container "${c.name}" of pod ${this.pod.metadata?.namespace ?? ''}/${this.pod.metadata?.name ?? ''}` },
      { atMs: at, text: `image ${image.image.ref.normalized} (${formatPlatform(platform)}${platform.osVersion !== undefined ? ` ${platform.osVersion}` : ''})` },
      {
        atMs: at,
        text: `node ${this.ctx.spec.name} (${this.ctx.spec.os}/${this.ctx.spec.arch}${this.ctx.spec.windowsBuild !== undefined ? ` ${this.ctx.spec.windowsBuild}` : ''}), started ${metav1Time(nowMs)}`,
      },
    );
    const readiness = c.spec.readinessProbe;
    let readyAt: number | undefined = nowMs + (b.readyAfterMs ?? (readiness?.initialDelaySeconds ?? 0) * 1000);
    if (b.neverReady) readyAt = undefined;
    const exitAt = b.exitAfterMs !== undefined ? nowMs + b.exitAfterMs : undefined;
    c.state = { kind: 'running', startedAt: nowMs, readyAt, exitAt, exitCode: b.exitCode };
    return min(exitAt, readyAt !== undefined && readyAt > nowMs ? readyAt : undefined);
  }

  private exitContainer(c: SimContainer, exitCode: number, atMs: number, log?: string): void {
    const s = c.state;
    if (s.kind !== 'running') return;
    c.logs.push({ atMs: atMs, text: log ?? `kubemix simulated exit with code ${exitCode}` });
    c.state = { kind: 'terminated', exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: s.startedAt, finishedAt: atMs };
  }

  private killForRestart(c: SimContainer, nowMs: number): void {
    const s = c.state;
    if (s.kind !== 'running') return;
    this.emit({ type: 'Normal', reason: containerEventReasons.KillingContainer, message: `Container ${c.name} definition changed, will be restarted` }, c);
    c.lastTermination = { kind: 'terminated', exitCode: 0, reason: 'Completed', startedAt: s.startedAt, finishedAt: nowMs };
    c.state = { kind: 'waiting', reason: waitingReasons.ContainerCreating };
    c.needsStart = true;
  }

  private gracePeriodMs(): number {
    const s = this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Math.max(0, s) * 1000;
  }

  private syncTermination(nowMs: number): SyncResult {
    if (this.terminationStartedAt === undefined) {
      this.terminationStartedAt = nowMs;
      const grace = this.gracePeriodMs();
      let stopAt = nowMs;
      for (const c of this.containers) {
        if (c.state.kind === 'pulling' || c.state.kind === 'waiting') {
          c.needsStart = false;
          continue;
        }
        if (c.state.kind !== 'running') continue;
        this.emit({ type: 'Normal', reason: containerEventReasons.KillingContainer, message: `Stopping container ${c.name}` }, c);
        const ignores = behaviourOf(this.pod, c.name).ignoreSigterm;
        const t = ignores ? grace : Math.min(grace, this.ctx.timings.stopMs);
        if (ignores) this.killedBySigkill = true;
        stopAt = Math.max(stopAt, nowMs + t);
      }
      this.stopAt = stopAt;
    }
    if (this.stopAt !== undefined && nowMs < this.stopAt) return this.result(nowMs, this.stopAt, false);
    if (!this.finished) {
      for (const c of this.containers) {
        const s = c.state;
        if (s.kind === 'running') {
          const code = this.killedBySigkill && behaviourOf(this.pod, c.name).ignoreSigterm ? 137 : 0;
          this.exitContainer(c, code, this.stopAt ?? nowMs);
        }
      }
      this.finished = true;
      if (!this.hostNetwork) this.ctx.releasePodIP(this.uid);
    }
    return this.result(nowMs, undefined, true);
  }

  // ---- status ----

  private phase(): PodPhase {
    if (this.phaseMemo !== undefined) return this.phaseMemo;
    const phase = this.rejection !== undefined ? 'Failed' : this.computePhase();
    // A pod the kubelet terminated (deleted) ends in a terminal phase: Failed unless it succeeded.
    const p = this.finished && phase !== 'Succeeded' ? 'Failed' : phase;
    if (!this.syncing) this.phaseMemo = p;
    return p;
  }

  /** `getPhase` of kubelet_pods.go. */
  private computePhase(): PodPhase {
    const restartPolicy = this.pod.spec?.restartPolicy ?? 'Always';
    const inits = this.containers.filter((c) => c.init && !c.sidecar);
    const podIsTerminal = this.finished;
    let pendingInit = 0;
    let failedInit = 0;
    for (const c of inits) {
      const s = c.state;
      if (s.kind === 'terminated' && s.exitCode === 0) continue;
      if (s.kind === 'terminated') failedInit++;
      else if (c.lastTermination !== undefined && c.lastTermination.exitCode !== 0) failedInit++;
      pendingInit++;
    }
    if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
    let running = 0;
    let waiting = 0;
    let stopped = 0;
    let succeeded = 0;
    for (const c of this.containers.filter((x) => !x.init || x.sidecar)) {
      const s = c.state;
      if (s.kind === 'running') {
        if (!c.sidecar) running++;
      } else if (s.kind === 'terminated') {
        if (c.sidecar) continue;
        stopped++;
        if (s.exitCode === 0) succeeded++;
      } else if (c.lastTermination !== undefined) {
        if (!c.sidecar) stopped++;
      } else if (!c.sidecar) waiting++;
    }
    if (pendingInit > 0 && !podIsTerminal) return 'Pending';
    if (waiting > 0) return 'Pending';
    if (running > 0) return 'Running';
    if (stopped > 0) {
      if (podIsTerminal || restartPolicy === 'Never') return stopped === succeeded ? 'Succeeded' : 'Failed';
      if (restartPolicy === 'Always') return 'Running';
      return stopped === succeeded ? 'Succeeded' : 'Running';
    }
    return 'Pending';
  }

  private containerStatus(c: SimContainer, nowMs: number): ContainerStatus {
    const state = this.apiState(c);
    const ready = c.state.kind === 'running' && c.state.readyAt !== undefined && c.state.readyAt <= nowMs && this.terminationStartedAt === undefined;
    const last = c.lastTermination;
    const image = c.image?.image.ref.normalized ?? c.spec.image ?? '';
    return {
      name: c.name,
      state,
      lastState: last !== undefined ? { terminated: terminatedState(last, c.containerID) } : {},
      ready: c.init && !c.sidecar ? state.terminated?.exitCode === 0 : ready,
      restartCount: c.restartCount,
      image,
      imageID: c.image?.image.repoDigest ?? '',
      ...(c.containerID !== undefined ? { containerID: c.containerID } : {}),
      started: c.state.kind === 'running',
      ...volumeMountStatuses(c.spec),
    };
  }

  private defaultWaitingReason(): string {
    return this.containers.some((c) => c.init) ? waitingReasons.PodInitializing : waitingReasons.ContainerCreating;
  }

  private apiState(c: SimContainer): ContainerState {
    const s = c.state;
    switch (s.kind) {
      case 'running':
        return { running: { startedAt: metav1Time(s.startedAt) } };
      case 'terminated':
        return { terminated: terminatedState(s, c.containerID) };
      case 'pulling':
        return { waiting: { reason: this.defaultWaitingReason() } };
      case 'waiting': {
        // With init containers every container's default waiting reason is PodInitializing.
        if (s.reason === waitingReasons.ContainerCreating) return { waiting: { reason: this.defaultWaitingReason() } };
        return { waiting: { reason: s.reason, ...(s.message !== undefined ? { message: s.message } : {}) } };
      }
    }
  }

  private conditions(nowMs: number, statuses: ContainerStatus[], initStatuses: ContainerStatus[], phase: string): PodCondition[] {
    const now = metav1Time(nowMs);
    const prev = this.pod.status?.conditions ?? [];
    const cond = (type: string, ok: boolean, reason?: string, message?: string): PodCondition => {
      const status = ok ? 'True' : 'False';
      const p = prev.find((x) => x.type === type);
      const lastTransitionTime = p !== undefined && p.status === status && p.lastTransitionTime !== undefined ? p.lastTransitionTime : now;
      return { type, status, lastTransitionTime, ...(reason !== undefined ? { reason } : {}), ...(message !== undefined ? { message } : {}) };
    };
    const terminal = phase === 'Succeeded' || phase === 'Failed';
    const sandboxOk = this.sandboxReady && !this.finished;
    const incompleteInit = initStatuses.filter((s, i) => {
      const c = this.containers.filter((x) => x.init)[i];
      if (c?.sidecar === true) return s.started !== true;
      return s.state?.terminated?.exitCode !== 0;
    });
    const initialized = incompleteInit.length === 0;
    const unready = [...initStatuses.filter((_, i) => this.containers.filter((x) => x.init)[i]?.sidecar === true), ...statuses].filter((s) => !s.ready).map((s) => s.name);
    const out: PodCondition[] = [
      cond('PodReadyToStartContainers', sandboxOk),
      initialized
        ? cond('Initialized', true)
        : cond('Initialized', false, 'ContainersNotInitialized', `containers with incomplete status: [${incompleteInit.map((s) => s.name).join(' ')}]`),
    ];
    if (terminal) {
      out.push(cond('Ready', false, 'PodCompleted'), cond('ContainersReady', false, 'PodCompleted'));
    } else if (unready.length > 0) {
      const msg = `containers with unready status: [${unready.join(' ')}]`;
      out.push(cond('Ready', false, 'ContainersNotReady', msg), cond('ContainersReady', false, 'ContainersNotReady', msg));
    } else {
      out.push(cond('Ready', true), cond('ContainersReady', true));
    }
    const owned = new Set(out.map((c) => c.type));
    for (const p of prev) if (!owned.has(p.type)) out.push(p);
    // A pod bound without the scheduler (spec.nodeName set at creation) gets PodScheduled from the kubelet.
    if (!prev.some((p) => p.type === 'PodScheduled')) out.push(cond('PodScheduled', true));
    return out;
  }

  private result(nowMs: number, nextSyncMs: number | undefined, readyForDeletion: boolean): SyncResult {
    return { status: this.status(nowMs), nextSyncMs, readyForDeletion };
  }

  /** The pod status the kubelet reports at `nowMs` (`generateAPIPodStatus`). */
  status(nowMs: number): PodStatus {
    const hostIP = this.ctx.spec.internalIP;
    if (this.rejection !== undefined) {
      return {
        phase: 'Failed',
        reason: this.rejection.reason,
        message: rejectionMessage(this.rejection.message),
        ...(this.pod.status?.conditions !== undefined ? { conditions: this.pod.status.conditions } : {}),
        startTime: metav1Time(this.startTime ?? nowMs),
        qosClass: podQOSClass(this.pod),
      };
    }
    const phase = this.phase();
    const initStatuses = this.containers.filter((c) => c.init).map((c) => this.containerStatus(c, nowMs));
    const statuses = this.containers.filter((c) => !c.init).map((c) => this.containerStatus(c, nowMs));
    return {
      phase,
      conditions: this.conditions(nowMs, statuses, initStatuses, phase),
      hostIP,
      hostIPs: [{ ip: hostIP }],
      ...(this.podIP !== undefined && !this.finished ? { podIP: this.podIP, podIPs: [{ ip: this.podIP }] } : {}),
      ...(this.podIP !== undefined && this.finished && this.hostNetwork ? { podIP: this.podIP, podIPs: [{ ip: this.podIP }] } : {}),
      startTime: metav1Time(this.startTime ?? nowMs),
      ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: statuses,
      qosClass: podQOSClass(this.pod),
    };
  }
}

function terminatedState(s: Extract<SimState, { kind: 'terminated' }>, containerID: string | undefined): NonNullable<ContainerState['terminated']> {
  return {
    exitCode: s.exitCode,
    reason: s.reason,
    ...(s.message !== undefined ? { message: s.message } : {}),
    startedAt: metav1Time(s.startedAt),
    finishedAt: metav1Time(s.finishedAt),
    ...(containerID !== undefined ? { containerID } : {}),
  };
}

function entrypointOf(c: Container): string {
  return c.command?.[0] ?? '/docker-entrypoint.sh';
}

