// Test fixtures for the kubelet: small builders for pods and nodes.
import type { Container, Node, Pod } from 'kubernetes-types/core/v1.js';
import { initialNode, type SimulatedNodeSpec } from './node-status.js';

export const linuxSpec: SimulatedNodeSpec = { name: 'linux-amd64-1', os: 'linux', arch: 'amd64', internalIP: '127.0.1.2', podCIDR: '10.244.1.0/24', cpu: 4, memory: '16Gi', maxPods: 110 };
export const win2019Spec: SimulatedNodeSpec = {
  name: 'windows-2019-1',
  os: 'windows',
  arch: 'amd64',
  windowsBuild: '10.0.17763',
  internalIP: '127.0.1.5',
  podCIDR: '10.244.4.0/24',
  cpu: 4,
  memory: '16Gi',
  maxPods: 110,
  taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
};
export const win2022Spec: SimulatedNodeSpec = { ...win2019Spec, name: 'windows-2022-1', windowsBuild: '10.0.20348', internalIP: '127.0.1.6', podCIDR: '10.244.5.0/24' };

export function nodeOf(spec: SimulatedNodeSpec): Node {
  return initialNode(spec, { now: '2026-01-01T00:00:00Z', networkReady: true });
}

export class PodBuilder {
  private readonly pod: Pod;
  constructor(name: string) {
    this.pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: `uid-${name}` },
      spec: { containers: [] },
    };
  }
  container(c: Partial<Container> & { name: string }): this {
    this.pod.spec!.containers.push({ image: 'nginx:1.27', ...c });
    return this;
  }
  init(c: Partial<Container> & { name: string }): this {
    (this.pod.spec!.initContainers ??= []).push({ image: 'busybox:1.36', ...c });
    return this;
  }
  labels(l: Record<string, string>): this {
    this.pod.metadata!.labels = { ...this.pod.metadata!.labels, ...l };
    return this;
  }
  annotations(a: Record<string, string>): this {
    this.pod.metadata!.annotations = { ...this.pod.metadata!.annotations, ...a };
    return this;
  }
  spec(s: Partial<NonNullable<Pod['spec']>>): this {
    Object.assign(this.pod.spec!, s);
    return this;
  }
  obj(): Pod {
    if (this.pod.spec!.containers.length === 0) this.container({ name: 'app' });
    return structuredClone(this.pod);
  }
}

export const makePod = (name: string): PodBuilder => new PodBuilder(name);

import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { Backoff } from '../runtime/backoff.js';
import { createDefaultCatalog } from '../runtime/builtin-images.js';
import type { ImageCatalog } from '../runtime/catalog.js';
import { ImageManager, type KubeletEvent } from '../runtime/image-manager.js';
import { NodeImageStore } from '../runtime/image-store.js';
import { windowsOsVersion } from './node-status.js';
import { defaultPodWorkerTimings, type PodWorkerContext } from './pod-worker.js';

/** A pod worker context over a fixed node, recording events. */
export function fakeContext(spec: SimulatedNodeSpec, opts: { networkReady?: boolean; runtimeClasses?: Record<string, string>; catalog?: ImageCatalog } = {}) {
  const events: Array<KubeletEvent & { pod: string }> = [];
  const store = new NodeImageStore();
  const osVersion = windowsOsVersion(spec);
  const imageManager = new ImageManager({
    catalog: opts.catalog ?? createDefaultCatalog(),
    store,
    host: { os: spec.os, architecture: spec.arch, ...(osVersion !== undefined ? { osVersion } : {}) },
    bandwidthBytesPerSecond: 100_000_000,
    pullLatencyMs: 200,
  });
  const state = { networkReady: opts.networkReady ?? true, nextIP: 2 };
  const ctx: PodWorkerContext = {
    spec,
    node: () => nodeOf(spec),
    imageManager,
    crashBackoff: new Backoff(10_000, 300_000),
    networkReady: () => state.networkReady,
    runtimeClassHandler: (name) => opts.runtimeClasses?.[name],
    admittedPods: () => [],
    allocatePodIP: () => `10.244.1.${state.nextIP++}`,
    releasePodIP: () => undefined,
    event: (pod, e) => events.push({ ...e, pod: pod.metadata?.name ?? '' }),
    timings: defaultPodWorkerTimings,
  };
  return { ctx, events, store, state };
}

/** kubectl's READY, STATUS and RESTARTS cells (printers.go printPod), enough for the tests. */
export function printPod(pod: { status?: PodStatus; metadata?: Pod['metadata'] }): { ready: string; status: string; restarts: number } {
  const s = pod.status ?? {};
  let reason = s.reason ?? s.phase ?? '';
  const total = s.containerStatuses?.length ?? 0;
  let ready = 0;
  let restarts = 0;
  let initializing = false;
  const inits = s.initContainerStatuses ?? [];
  for (const [i, c] of inits.entries()) {
    restarts += c.restartCount;
    if (c.state?.terminated?.exitCode === 0) continue;
    if (c.state?.terminated !== undefined) reason = `Init:${c.state.terminated.reason ?? `ExitCode:${c.state.terminated.exitCode}`}`;
    else if (c.state?.waiting?.reason !== undefined && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${inits.length}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    for (const c of [...(s.containerStatuses ?? [])].reverse()) {
      restarts += c.restartCount;
      if (c.state?.waiting?.reason !== undefined) reason = c.state.waiting.reason;
      else if (c.state?.terminated !== undefined) reason = c.state.terminated.reason ?? `ExitCode:${c.state.terminated.exitCode}`;
      else if (c.ready && c.state?.running !== undefined) {
        hasRunning = true;
        ready++;
      } else if (c.state?.running !== undefined) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) {
      reason = s.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp !== undefined && s.phase !== 'Succeeded' && s.phase !== 'Failed') reason = 'Terminating';
  return { ready: `${ready}/${total}`, status: reason, restarts };
}
