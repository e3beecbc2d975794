import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { PodWorker, type SyncResult } from './pod-worker.js';
import { fakeContext, linuxSpec, makePod, printPod, win2019Spec, win2022Spec } from './_builders.test-helpers.js';
import type { SimulatedNodeSpec } from './node-status.js';
import { createDefaultCatalog } from '../runtime/builtin-images.js';
import { catalogFromData } from '../runtime/catalog.js';

/** Runs a worker on a simulated timeline, following its `nextSyncMs`, until `untilMs`. */
function runUntil(worker: PodWorker, startMs: number, untilMs: number): { last: SyncResult; at: number; timeline: Array<{ at: number; status: string; ready: string; restarts: number }> } {
  let at = startMs;
  let last = worker.sync(at);
  const timeline = [{ at, ...printPod({ status: last.status }) }];
  while (last.nextSyncMs !== undefined && last.nextSyncMs <= untilMs) {
    at = Math.max(at, last.nextSyncMs);
    last = worker.sync(at);
    timeline.push({ at, ...printPod({ status: last.status }) });
  }
  return { last, at, timeline };
}

function start(spec: SimulatedNodeSpec, pod: Pod, opts: Parameters<typeof fakeContext>[1] = {}) {
  const f = fakeContext(spec, opts);
  return { ...f, worker: new PodWorker(f.ctx, pod) };
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

void test('a pod goes ContainerCreating -> Running, with upstream events and conditions', () => {
  const { worker, events } = start(linuxSpec, makePod('web').container({ name: 'web', image: 'nginx:1.27' }).obj());
  const first = worker.sync(T0);
  assert.deepEqual(printPod({ status: first.status }), { ready: '0/1', status: 'ContainerCreating', restarts: 0 });
  assert.equal(first.status.phase, 'Pending');
  assert.equal(first.status.podIP, '10.244.1.2');
  assert.equal(first.status.hostIP, '127.0.1.2');
  const { last } = runUntil(worker, T0, T0 + 60_000);
  assert.deepEqual(printPod({ status: last.status }), { ready: '1/1', status: 'Running', restarts: 0 });
  assert.equal(last.status.phase, 'Running');
  assert.deepEqual(
    last.status.conditions?.map((c) => [c.type, c.status]),
    [
      ['PodReadyToStartContainers', 'True'],
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ],
  );
  const cs = last.status.containerStatuses?.[0];
  assert.equal(cs?.image, 'docker.io/library/nginx:1.27');
  assert.match(cs?.imageID ?? '', /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  assert.match(cs?.containerID ?? '', /^containerd:\/\/[0-9a-f]{64}$/);
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.message]),
    [
      ['Normal', 'Pulling', 'Pulling image "nginx:1.27"'],
      ['Normal', 'Pulled', 'Successfully pulled image "nginx:1.27" in 921ms (921ms including waiting). Image size: 72099410 bytes.'],
      ['Normal', 'Created', 'Created container: web'],
      ['Normal', 'Started', 'Started container web'],
    ],
  );
  assert.deepEqual(worker.logs('web')?.slice(0, 2), ['kubemix simulated container "web" of pod default/web', 'image docker.io/library/nginx:1.27 (linux/amd64)']);
});

void test('readiness waits for the readiness probe\'s initial delay', () => {
  const { worker } = start(linuxSpec, makePod('web').container({ name: 'web', image: 'nginx:1.27', readinessProbe: { initialDelaySeconds: 15, httpGet: { port: 80 } } }).obj());
  const { timeline, last } = runUntil(worker, T0, T0 + 60_000);
  const started = timeline.find((t) => t.status === 'Running');
  assert.ok(started !== undefined);
  assert.equal(started.ready, '0/1');
  const readyAt = timeline.find((t) => t.ready === '1/1');
  assert.ok(readyAt !== undefined && readyAt.at - started.at === 15_000);
  assert.equal(last.status.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
});

void test('servercore:ltsc2019 on a 2022 node: ErrImagePull, then ImagePullBackOff with the exact events', () => {
  const image = 'mcr.microsoft.com/windows/servercore:ltsc2019';
  const { worker, events } = start(win2022Spec, makePod('win').container({ name: 'windowswebserver', image }).obj());
  const r1 = worker.sync(T0);
  assert.equal(printPod({ status: r1.status }).status, 'ContainerCreating');
  const r2 = worker.sync(r1.nextSyncMs!);
  assert.deepEqual(printPod({ status: r2.status }), { ready: '0/1', status: 'ErrImagePull', restarts: 0 });
  const msg = `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": no match for platform in manifest: not found`;
  assert.equal(r2.status.containerStatuses?.[0]?.state?.waiting?.message, msg);
  const r3 = worker.sync(r2.nextSyncMs!);
  assert.deepEqual(printPod({ status: r3.status }), { ready: '0/1', status: 'ImagePullBackOff', restarts: 0 });
  assert.equal(r3.status.containerStatuses?.[0]?.state?.waiting?.message, `Back-off pulling image "${image}"`);
  assert.equal(r3.status.phase, 'Pending');
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.message]),
    [
      ['Normal', 'Pulling', `Pulling image "${image}"`],
      ['Warning', 'Failed', `Failed to pull image "${image}": ${msg}`],
      ['Warning', 'Failed', 'Error: ErrImagePull'],
      ['Normal', 'BackOff', `Back-off pulling image "${image}"`],
      ['Warning', 'Failed', 'Error: ImagePullBackOff'],
    ],
  );
  // The next attempt comes when the 10 s back-off ends, then 20 s.
  const failedAt = r1.nextSyncMs!;
  assert.equal(r3.nextSyncMs, failedAt + 10_000);
});

void test('servercore:ltsc2019 on a 2019 node runs', () => {
  const { worker } = start(win2019Spec, makePod('win').container({ name: 'w', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }).obj());
  const { last } = runUntil(worker, T0, T0 + 120_000);
  assert.deepEqual(printPod({ status: last.status }), { ready: '1/1', status: 'Running', restarts: 0 });
});

void test('an amd64-only single-manifest image on arm64 crashes with exec format error into CrashLoopBackOff', () => {
  const arm: SimulatedNodeSpec = { ...linuxSpec, name: 'linux-arm64-1', arch: 'arm64' };
  const { worker, events } = start(arm, makePod('sql').container({ name: 'mssql', image: 'mcr.microsoft.com/mssql/server:2022-latest' }).obj());
  const { last, timeline } = runUntil(worker, T0, T0 + 60_000);
  assert.ok(timeline.some((t) => t.status === 'Error'));
  const p = printPod({ status: last.status });
  assert.equal(p.status, 'CrashLoopBackOff');
  assert.ok(p.restarts >= 2);
  assert.equal(last.status.phase, 'Running');
  const cs = last.status.containerStatuses?.[0];
  assert.equal(cs?.lastState?.terminated?.exitCode, 255);
  assert.deepEqual(worker.logs('mssql', true)?.at(-1), 'exec /docker-entrypoint.sh: exec format error');
  assert.match(cs?.state?.waiting?.message ?? '', /^back-off (10|20|40)s restarting failed container=mssql pod=sql_default\(uid-sql\)$/);
  assert.ok(events.some((e) => e.reason === 'BackOff' && e.message === 'Back-off restarting failed container mssql in pod sql_default(uid-sql)'));
});

void test('crash-loop back-off doubles from 10 s to 5 min', () => {
  const { worker } = start(linuxSpec, makePod('c').annotations({ 'kubemix.dev/simulate': 'crash' }).container({ name: 'app', image: 'busybox:1.36' }).obj());
  const { timeline } = runUntil(worker, T0, T0 + 30 * 60_000);
  const starts: number[] = [];
  let prevRestarts = -1;
  for (const t of timeline) {
    if (t.restarts !== prevRestarts) starts.push(t.at);
    prevRestarts = t.restarts;
  }
  // Each instance runs 2 s and the kubelet notices an exit 1 s later (PLEG). The first restart is immediate,
  // then 10 s, 20 s, ... 5 min after each exit. The first gap also holds the 222 ms pull.
  const gaps = starts.slice(1).map((s, i) => s - starts[i]! - 2000);
  assert.deepEqual(gaps.slice(0, 8), [1222, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
});

void test('a Job pod completes by default: Completed, phase Succeeded', () => {
  const pod = makePod('job-x').spec({ restartPolicy: 'Never' }).container({ name: 'pi', image: 'busybox:1.36' }).obj();
  pod.metadata!.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: 'j', controller: true }];
  const { worker } = start(linuxSpec, pod);
  const { last } = runUntil(worker, T0, T0 + 60_000);
  assert.deepEqual(printPod({ status: last.status }), { ready: '0/1', status: 'Completed', restarts: 0 });
  assert.equal(last.status.phase, 'Succeeded');
  assert.deepEqual(last.status.conditions?.find((c) => c.type === 'Ready'), {
    type: 'Ready',
    status: 'False',
    reason: 'PodCompleted',
    lastTransitionTime: last.status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime,
  });
});

void test('exit=1 with restartPolicy Never fails the pod', () => {
  const pod = makePod('f').spec({ restartPolicy: 'Never' }).annotations({ 'kubemix.dev/simulate': 'exit=1,after=2s' }).obj();
  const { worker } = start(linuxSpec, pod);
  const { last } = runUntil(worker, T0, T0 + 60_000);
  assert.equal(last.status.phase, 'Failed');
  assert.equal(printPod({ status: last.status }).status, 'Error');
});

void test('isTerminal, asked between syncs (as admission asks of every other pod), follows each sync and deletion', () => {
  const pod = makePod('f').spec({ restartPolicy: 'Never' }).annotations({ 'kubemix.dev/simulate': 'exit=1,after=2s' }).obj();
  const { worker } = start(linuxSpec, pod);
  let r = worker.sync(T0);
  const seen: boolean[] = [worker.isTerminal, worker.isTerminal];
  while (r.nextSyncMs !== undefined && r.status.phase !== 'Failed') {
    r = worker.sync(r.nextSyncMs);
    seen.push(worker.isTerminal);
  }
  assert.equal(r.status.phase, 'Failed');
  assert.deepEqual([seen[0], seen[1], seen.at(-1)], [false, false, true]);
  assert.equal(seen.indexOf(true), seen.length - 1);

  // A running pod asked before and after the kubelet terminates it on deletion.
  const web = makePod('w').container({ name: 'web', image: 'nginx:1.27' }).obj();
  const { worker: w } = start(linuxSpec, web);
  const { at } = runUntil(w, T0, T0 + 60_000);
  assert.equal(w.isTerminal, false);
  w.update({ ...web, metadata: { ...web.metadata, deletionTimestamp: new Date(at).toISOString(), deletionGracePeriodSeconds: 0 } }, at);
  let d = w.sync(at);
  while (d.nextSyncMs !== undefined && !d.readyForDeletion) d = w.sync(d.nextSyncMs);
  assert.equal(w.isTerminal, true);
});

void test('init containers run first; the app waits with PodInitializing', () => {
  const pod = makePod('i').init({ name: 'setup', image: 'busybox:1.36' }).container({ name: 'app', image: 'nginx:1.27' }).obj();
  const { worker } = start(linuxSpec, pod);
  const { timeline, last } = runUntil(worker, T0, T0 + 60_000);
  assert.equal(timeline[0]?.status, 'Init:0/1');
  assert.deepEqual(printPod({ status: last.status }), { ready: '1/1', status: 'Running', restarts: 0 });
});

void test('ErrImageNeverPull for a missing image with pull policy Never', () => {
  const { worker, events } = start(linuxSpec, makePod('n').container({ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'Never' }).obj());
  const r = worker.sync(T0);
  assert.equal(printPod({ status: r.status }).status, 'ErrImageNeverPull');
  assert.equal(r.status.containerStatuses?.[0]?.state?.waiting?.message, 'Container image "nginx:1.27" is not present with pull policy of Never');
  assert.deepEqual(events.map((e) => e.reason), ['ErrImageNeverPull', 'Failed']);
});

void test('the OS field mismatch rejects the pod: Failed with reason and message', () => {
  const { worker, events } = start(linuxSpec, makePod('w').spec({ os: { name: 'windows' } }).obj());
  const r = worker.sync(T0);
  assert.equal(r.status.phase, 'Failed');
  assert.equal(r.status.reason, 'PodOSNotSupported');
  assert.equal(r.status.message, "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS");
  assert.equal(printPod({ status: r.status }).status, 'PodOSNotSupported');
  assert.deepEqual(events, [{ type: 'Warning', reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS", pod: 'w' }]);
});

void test('without a CNI, ordinary pods wait with NetworkNotReady; hostNetwork pods start', () => {
  const f = fakeContext(linuxSpec, { networkReady: false });
  const w = new PodWorker(f.ctx, makePod('app').obj());
  const r = w.sync(T0);
  assert.equal(printPod({ status: r.status }).status, 'ContainerCreating');
  assert.deepEqual(f.events.map((e) => [e.reason, e.message]), [
    [
      'NetworkNotReady',
      'network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
    ],
  ]);
  const h = new PodWorker(f.ctx, makePod('flannel').spec({ hostNetwork: true }).container({ name: 'kube-flannel', image: 'flannel/flannel:v0.26.1' }).obj());
  const { last } = runUntil(h, T0, T0 + 60_000);
  assert.equal(printPod({ status: last.status }).status, 'Running');
  assert.equal(last.status.podIP, '127.0.1.2');
  f.state.networkReady = true;
  const { last: appLast } = runUntil(w, T0 + 1000, T0 + 60_000);
  assert.equal(printPod({ status: appLast.status }).status, 'Running');
});

void test('an unknown RuntimeClass handler fails sandbox creation with FailedCreatePodSandBox', () => {
  const spec: SimulatedNodeSpec = { ...linuxSpec, runtimeHandlers: ['runc'] };
  const { worker, events } = start(spec, makePod('g').spec({ runtimeClassName: 'gvisor' }).obj(), { runtimeClasses: { gvisor: 'runsc' } });
  const r = worker.sync(T0);
  assert.equal(printPod({ status: r.status }).status, 'ContainerCreating');
  assert.equal(r.status.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.status, 'False');
  assert.deepEqual(events.map((e) => [e.type, e.reason, e.message]), [
    ['Warning', 'FailedCreatePodSandBox', 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "runsc" is configured'],
  ]);
});

void test('an ltsc2019-named image unknown to the catalog is an index for 17763: no match on a 2022 node', () => {
  const { worker } = start(win2022Spec, makePod('w').container({ name: 'app', image: 'example.com/legacy/app:1.0-ltsc2019' }).obj());
  const r = runUntil(worker, T0, T0 + 5_000).last;
  assert.equal(printPod({ status: r.status }).status, 'ImagePullBackOff');
});

void test('a wrong-build single-manifest Windows image pulls, then fails to start with the HCS message', () => {
  const catalog = createDefaultCatalog(
    catalogFromData({ images: [{ name: 'example.com/legacy/app', mediaType: 'manifest', platforms: [{ os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.1' }] }] }),
  );
  const { worker, events } = start(win2022Spec, makePod('w').container({ name: 'app', image: 'example.com/legacy/app:1.0' }).obj(), { catalog });
  const { last, timeline } = runUntil(worker, T0, T0 + 60_000);
  assert.ok(timeline.some((t) => t.status === 'StartError'));
  assert.equal(printPod({ status: last.status }).status, 'CrashLoopBackOff');
  const term = last.status.containerStatuses?.[0]?.lastState?.terminated;
  assert.equal(term?.reason, 'StartError');
  assert.equal(term?.exitCode, 128);
  assert.match(
    term?.message ?? '',
    /^failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem [0-9a-f]{64}: The container operating system does not match the host operating system\.: unknown$/,
  );
  assert.ok(events.some((e) => e.reason === 'Failed' && e.message === `Error: ${term?.message ?? ''}`));
  assert.ok(!events.some((e) => e.reason === 'Started'));
});

void test('graceful deletion: Killing, then ready for the final delete after the process stops', () => {
  const pod = makePod('d').obj();
  const { worker, events } = start(linuxSpec, pod);
  runUntil(worker, T0, T0 + 10_000);
  const deleting: Pod = { ...worker.current, metadata: { ...worker.current.metadata, deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 } };
  worker.update(deleting, T0 + 10_000);
  const r = worker.sync(T0 + 10_000);
  assert.equal(r.readyForDeletion, false);
  assert.equal(printPod({ status: r.status, metadata: deleting.metadata }).status, 'Terminating');
  assert.ok(events.some((e) => e.reason === 'Killing' && e.message === 'Stopping container app'));
  const r2 = worker.sync(r.nextSyncMs!);
  assert.equal(r2.readyForDeletion, true);
  assert.equal(r2.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
});

void test('ignore-sigterm: deletion waits the grace period and ends with 137', () => {
  const pod = makePod('d').annotations({ 'kubemix.dev/simulate': 'ignore-sigterm' }).spec({ terminationGracePeriodSeconds: 5 }).obj();
  const { worker } = start(linuxSpec, pod);
  runUntil(worker, T0, T0 + 10_000);
  const deleting: Pod = { ...worker.current, metadata: { ...worker.current.metadata, deletionTimestamp: '2026-01-01T00:00:15Z', deletionGracePeriodSeconds: 5 } };
  worker.update(deleting, T0 + 10_000);
  const r = worker.sync(T0 + 10_000);
  assert.equal(r.nextSyncMs, T0 + 15_000);
  const r2 = worker.sync(T0 + 15_000);
  assert.equal(r2.readyForDeletion, true);
  assert.equal(r2.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 137);
});

void test('a pod that ran before the agent restarted resumes as after a node reboot: restarts count on, last state Unknown/255', () => {
  const pod = makePod('r').obj();
  const resumed: Pod = {
    ...pod,
    status: {
      phase: 'Running',
      startTime: '2025-12-31T23:00:00Z',
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 2,
          image: 'docker.io/library/nginx:1.27',
          imageID: '',
          containerID: 'containerd://aaaa',
          state: { running: { startedAt: '2025-12-31T23:30:00Z' } },
        },
      ],
    },
  };
  const { worker } = start(linuxSpec, resumed);
  const { last } = runUntil(worker, T0, T0 + 30_000);
  const cs = last.status.containerStatuses?.[0];
  assert.equal(cs?.restartCount, 3);
  assert.deepEqual([cs?.lastState?.terminated?.reason, cs?.lastState?.terminated?.exitCode], ['Unknown', 255]);
  assert.equal(last.status.startTime, '2025-12-31T23:00:00Z');
  assert.equal(printPod({ status: last.status }).status, 'Running');
});

void test('the kubelet reports the QoS class the API server stored, computing it only for a pod without one (GetPodQOS)', () => {
  const guaranteed = { name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1024Mi' } } };
  const stored = makePod('q').container(guaranteed).obj();
  const { worker } = start(linuxSpec, { ...stored, status: { phase: 'Pending', qosClass: 'Burstable' } });
  assert.equal(runUntil(worker, T0, T0 + 5_000).last.status.qosClass, 'Burstable');
  const { worker: unstored } = start(linuxSpec, makePod('r').container(guaranteed).obj());
  assert.equal(runUntil(unstored, T0, T0 + 5_000).last.status.qosClass, 'Guaranteed');
});

void test('a pod deleted while its image cannot be pulled ends Failed', () => {
  const { worker } = start(win2022Spec, makePod('w').container({ name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }).obj());
  runUntil(worker, T0, T0 + 5_000);
  const deleting: Pod = { ...worker.current, metadata: { ...worker.current.metadata, deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 30 } };
  worker.update(deleting, T0 + 5_000);
  const r = worker.sync(T0 + 5_000);
  assert.equal(r.readyForDeletion, true);
  assert.equal(r.status.phase, 'Failed');
});

void test('container statuses report the mounts from the first status on, read-only ones with recursiveReadOnly Disabled', () => {
  const token = { name: 'kube-api-access-x7k2q', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true };
  const pod = makePod('m')
    .init({ name: 'setup', image: 'busybox:1.36', volumeMounts: [token] })
    .container({ name: 'app', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: false }, { ...token, recursiveReadOnly: 'IfPossible' }] })
    .container({ name: 'bare', image: 'nginx:1.27' })
    .obj();
  const { worker } = start(linuxSpec, pod);
  const tokenStatus = { name: token.name, mountPath: token.mountPath, readOnly: true, recursiveReadOnly: 'Disabled' };
  const first = worker.sync(T0);
  const { last } = runUntil(worker, T0, T0 + 60_000);
  for (const status of [first.status, last.status]) {
    assert.deepEqual(status.initContainerStatuses?.[0]?.volumeMounts, [tokenStatus]);
    assert.deepEqual(status.containerStatuses?.[0]?.volumeMounts, [{ name: 'data', mountPath: '/data' }, tokenStatus]);
    assert.equal('volumeMounts' in (status.containerStatuses?.[1] ?? {}), false);
  }
});
