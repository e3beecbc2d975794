import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { computePodQOS, podQOSClass, type QOSClass } from './qos.js';

function list(cpu: string, memory: string): Record<string, string> {
  return { ...(cpu !== '' ? { cpu } : {}), ...(memory !== '' ? { memory } : {}) };
}

function container(name: string, requests: Record<string, string>, limits: Record<string, string>): Container {
  return { name, resources: { requests, limits } };
}

// TestComputePodQOS of pkg/apis/core/v1/helper/qos/qos_test.go, case by case (pod-level resources are off in 1.32).
const cases: { name: string; containers: Container[]; initContainers?: Container[]; expected: QOSClass }[] = [
  { name: 'guaranteed', containers: [container('guaranteed', list('100m', '100Mi'), list('100m', '100Mi'))], expected: 'Guaranteed' },
  {
    name: 'guaranteed-guaranteed',
    containers: [container('guaranteed', list('100m', '100Mi'), list('100m', '100Mi')), container('guaranteed', list('100m', '100Mi'), list('100m', '100Mi'))],
    expected: 'Guaranteed',
  },
  { name: 'best-effort-best-effort', containers: [container('best-effort', list('', ''), list('', '')), container('best-effort', list('', ''), list('', ''))], expected: 'BestEffort' },
  { name: 'best-effort', containers: [container('best-effort', list('', ''), list('', ''))], expected: 'BestEffort' },
  { name: 'best-effort-burstable', containers: [container('best-effort', list('', ''), list('', '')), container('burstable', list('1', ''), list('2', ''))], expected: 'Burstable' },
  {
    name: 'best-effort-guaranteed',
    containers: [container('best-effort', list('', ''), list('', '')), container('guaranteed', list('10m', '100Mi'), list('10m', '100Mi'))],
    expected: 'Burstable',
  },
  { name: 'burstable-cpu-guaranteed-memory', containers: [container('burstable', list('', '100Mi'), list('', '100Mi'))], expected: 'Burstable' },
  { name: 'burstable-no-limits', containers: [container('burstable', list('100m', '100Mi'), list('', ''))], expected: 'Burstable' },
  {
    name: 'burstable-guaranteed',
    containers: [container('burstable', list('1', '100Mi'), list('2', '100Mi')), container('guaranteed', list('100m', '100Mi'), list('100m', '100Mi'))],
    expected: 'Burstable',
  },
  {
    name: 'burstable-unbounded-but-requests-match-limits',
    containers: [container('burstable', list('100m', '100Mi'), list('200m', '200Mi')), container('burstable-unbounded', list('100m', '100Mi'), list('', ''))],
    expected: 'Burstable',
  },
  { name: 'burstable-1', containers: [container('burstable', list('10m', '100Mi'), list('100m', '200Mi'))], expected: 'Burstable' },
  { name: 'burstable-2', containers: [container('burstable', list('0', '0'), list('100m', '200Mi'))], expected: 'Burstable' },
  {
    name: 'best-effort-hugepages',
    containers: [container('best-effort', { ...list('0', '0'), 'hugepages-2Mi': '1Gi' }, { ...list('0', '0'), 'hugepages-2Mi': '1Gi' })],
    expected: 'BestEffort',
  },
  {
    name: 'init-container',
    containers: [container('best-effort', list('', ''), list('', ''))],
    initContainers: [container('burstable', list('10m', '100Mi'), list('100m', '200Mi'))],
    expected: 'Burstable',
  },
];

for (const c of cases) {
  test(`ComputePodQOS: ${c.name}`, () => {
    assert.equal(computePodQOS({ containers: c.containers, ...(c.initContainers !== undefined ? { initContainers: c.initContainers } : {}) }), c.expected);
  });
}

test('ComputePodQOS compares quantities by value, not by how they are written', () => {
  assert.equal(computePodQOS({ containers: [container('c', list('1000m', '1Gi'), list('1', '1024Mi'))] }), 'Guaranteed');
});

test('GetPodQOS answers the stored class, and computes one only for a pod without it', () => {
  const spec = { containers: [container('c', list('1', '1Gi'), list('1', '1Gi'))] };
  const stored: Pod = { spec, status: { qosClass: 'Burstable' } };
  assert.equal(podQOSClass(stored), 'Burstable');
  assert.equal(podQOSClass({ spec }), 'Guaranteed');
});
