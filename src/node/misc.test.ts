import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isNetworkPluginPod } from './cni.js';
import { PodIPAllocator } from './ip-allocator.js';
import { behaviourOf, parseDurationMs } from './kubelet/simulate.js';

const pod = (meta: Partial<NonNullable<Pod['metadata']>>, image = 'nginx', spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { name: 'p', namespace: 'default', ...meta },
  spec: { containers: [{ name: 'c', image }], ...spec },
});

void test('network plugin pods: flannel, calico, cilium by label, annotation or image', () => {
  assert.equal(isNetworkPluginPod(pod({ labels: { app: 'flannel' } })), true);
  assert.equal(isNetworkPluginPod(pod({ labels: { 'k8s-app': 'flannel' } })), true);
  assert.equal(isNetworkPluginPod(pod({ labels: { 'k8s-app': 'calico-node' } })), true);
  assert.equal(isNetworkPluginPod(pod({ annotations: { 'kubemix.dev/cni': 'true' } })), true);
  assert.equal(isNetworkPluginPod(pod({}, 'docker.io/flannel/flannel:v0.26.1')), true);
  assert.equal(isNetworkPluginPod(pod({}, 'sigwindowstools/flannel:v0.26.1-hostprocess')), true);
  assert.equal(isNetworkPluginPod(pod({}, 'calico/node:v3.28.0')), true);
  assert.equal(isNetworkPluginPod(pod({}, 'quay.io/cilium/cilium:v1.16.0')), true);
  assert.equal(isNetworkPluginPod(pod({}, 'registry.k8s.io/kube-proxy:v1.32.0')), false);
  assert.equal(isNetworkPluginPod(pod({ labels: { app: 'web' } }, 'example.com/flannel-dashboard')), false);
  // The CNI plugin installer alone (an init container) does not make the network ready.
  assert.equal(isNetworkPluginPod(pod({}, 'nginx', { initContainers: [{ name: 'i', image: 'docker.io/flannel/flannel-cni-plugin:v1.6.0-flannel1' }] })), false);
});

void test('pod IPs start at .2, move on, skip addresses in use, and wrap', () => {
  const a = new PodIPAllocator('10.244.1.0/24');
  assert.equal(a.allocate('u1'), '10.244.1.2');
  assert.equal(a.allocate('u2'), '10.244.1.3');
  assert.equal(a.allocate('u1'), '10.244.1.2');
  a.release('u1');
  assert.equal(a.allocate('u3'), '10.244.1.4');
  const small = new PodIPAllocator('10.0.0.0/29');
  const got = ['a', 'b', 'c', 'd', 'e'].map((u) => small.allocate(u));
  assert.deepEqual(got, ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  assert.throws(() => small.allocate('f'), /no IP addresses available in range set/);
  small.release('c');
  assert.equal(small.allocate('f'), '10.0.0.4');
});

void test('durations as the annotation writes them', () => {
  assert.equal(parseDurationMs('500ms'), 500);
  assert.equal(parseDurationMs('5s'), 5000);
  assert.equal(parseDurationMs('2m'), 120_000);
  assert.equal(parseDurationMs('1m30s'), 90_000);
  assert.equal(parseDurationMs('1.5s'), 1500);
  assert.equal(parseDurationMs('5'), undefined);
  assert.equal(parseDurationMs(''), undefined);
});

void test('the simulate annotation: pod-wide, per container, crash, run, defaults for Jobs', () => {
  assert.deepEqual(behaviourOf(pod({ annotations: { 'kubemix.dev/simulate': 'exit=0,after=5s' } }), 'c'), { exitCode: 0, exitAfterMs: 5000, neverReady: false, ignoreSigterm: false });
  assert.deepEqual(behaviourOf(pod({ annotations: { 'kubemix.dev/simulate': 'exit=1,after=2s' } }), 'c'), { exitCode: 1, exitAfterMs: 2000, neverReady: false, ignoreSigterm: false });
  assert.deepEqual(behaviourOf(pod({ annotations: { 'kubemix.dev/simulate': 'crash' } }), 'c'), { exitCode: 1, exitAfterMs: 2000, neverReady: false, ignoreSigterm: false });
  assert.deepEqual(behaviourOf(pod({}), 'c'), { exitCode: 0, neverReady: false, ignoreSigterm: false });
  assert.equal(behaviourOf(pod({}, 'x', { restartPolicy: 'Never' }), 'c').exitAfterMs, 3000);
  assert.equal(behaviourOf(pod({ ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'u' }] }), 'c').exitAfterMs, 3000);
  assert.equal(behaviourOf(pod({ annotations: { 'kubemix.dev/simulate': 'run' } }, 'x', { restartPolicy: 'Never' }), 'c').exitAfterMs, undefined);
  const perContainer = pod({ annotations: { 'kubemix.dev/simulate': 'crash', 'kubemix.dev/simulate.sidecar': 'run,never-ready' } });
  assert.deepEqual(behaviourOf(perContainer, 'sidecar'), { exitCode: 0, neverReady: true, ignoreSigterm: false });
  assert.equal(behaviourOf(perContainer, 'c').exitCode, 1);
  assert.equal(behaviourOf(pod({ annotations: { 'kubemix.dev/simulate': 'ready-after=10s,ignore-sigterm' } }), 'c').readyAfterMs, 10_000);
});
