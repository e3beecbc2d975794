/** Cases of pkg/quota/v1/evaluator/core/pods_test.go (TestPodConstraintsFunc, TestPodEvaluatorUsage) and services_test.go. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, Service } from 'kubernetes-types/core/v1.js';
import { evaluatorFor, podUsage } from './evaluators.js';
import { toWire } from './resources.js';

const pods = evaluatorFor({ group: '', resource: 'pods' });

function c(name: string, requests: Record<string, string> = {}, limits: Record<string, string> = {}, extra: Partial<Container> = {}): Container {
  return { name, resources: { requests, limits }, ...extra };
}

const constraints: { name: string; pod: Pod; required: string[]; err?: string }[] = [
  { name: 'init container resource missing', pod: { spec: { containers: [], initContainers: [c('dummy', { cpu: '1m' }, { cpu: '2m' })] } }, required: ['memory'], err: 'must specify memory for: dummy' },
  {
    name: 'multiple init container resource missing',
    pod: { spec: { containers: [], initContainers: [c('foo', { cpu: '1m' }, { cpu: '2m' }), c('bar', { cpu: '1m' }, { cpu: '2m' })] } },
    required: ['memory'],
    err: 'must specify memory for: bar,foo',
  },
  { name: 'container resource missing', pod: { spec: { containers: [c('dummy', { cpu: '1m' }, { cpu: '2m' })] } }, required: ['memory'], err: 'must specify memory for: dummy' },
  {
    name: 'multiple container resource missing',
    pod: { spec: { containers: [c('foo', { cpu: '1m' }, { cpu: '2m' }), c('bar', { cpu: '1m' }, { cpu: '2m' })] } },
    required: ['memory'],
    err: 'must specify memory for: bar,foo',
  },
  { name: 'container resource missing multiple', pod: { spec: { containers: [c('foo'), c('bar')] } }, required: ['memory', 'cpu'], err: 'must specify cpu for: bar,foo; memory for: bar,foo' },
  { name: 'extended resources are not required', pod: { spec: { containers: [c('dummy')] } }, required: ['requests.example.com/dongle'] },
];

for (const tc of constraints) {
  test(`TestPodConstraintsFunc: ${tc.name}`, () => {
    assert.equal(pods.constraints(tc.required, tc.pod), tc.err);
  });
}

const usage: { name: string; pod: Pod; usage: Record<string, string> }[] = [
  {
    name: 'init container CPU',
    pod: { spec: { containers: [], initContainers: [c('i', { cpu: '1m' }, { cpu: '2m' })] } },
    usage: { 'count/pods': '1', cpu: '1m', 'limits.cpu': '2m', pods: '1', 'requests.cpu': '1m' },
  },
  {
    name: 'container hugepages',
    pod: { spec: { containers: [c('c', { 'hugepages-2Mi': '100Mi' })] } },
    usage: { 'count/pods': '1', 'hugepages-2Mi': '100Mi', pods: '1', 'requests.hugepages-2Mi': '100Mi' },
  },
  {
    name: 'extended resource',
    pod: { spec: { containers: [c('c', { 'example.com/dongle': '3' }, { 'example.com/dongle': '3' })] } },
    usage: { 'count/pods': '1', pods: '1', 'requests.example.com/dongle': '3' },
  },
  {
    name: 'init container maximum overrides the containers; overhead is added to requests and set limits',
    pod: {
      spec: {
        containers: [c('a', { cpu: '1', memory: '1Gi' }, { cpu: '2' }), c('b', { cpu: '1', memory: '1Gi' })],
        initContainers: [c('i', { cpu: '3', memory: '1Gi' }, { cpu: '3' })],
        overhead: { cpu: '250m', memory: '64Mi' },
      },
    },
    usage: { 'count/pods': '1', cpu: '3250m', 'limits.cpu': '3250m', memory: '2112Mi', pods: '1', 'requests.cpu': '3250m', 'requests.memory': '2112Mi' },
  },
  {
    name: 'restartable init containers (sidecars) add to the containers',
    pod: { spec: { containers: [c('a', { cpu: '1' })], initContainers: [c('s', { cpu: '500m' }, {}, { restartPolicy: 'Always' }), c('i', { cpu: '1' })] } },
    usage: { 'count/pods': '1', cpu: '1500m', pods: '1', 'requests.cpu': '1500m' },
  },
  { name: 'terminal pods only count as objects', pod: { spec: { containers: [c('a', { cpu: '1' })] }, status: { phase: 'Succeeded' } }, usage: { 'count/pods': '1' } },
  {
    name: 'a deleted pod past its grace period is not charged',
    pod: { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 }, spec: { containers: [c('a', { cpu: '1' })] } },
    usage: { 'count/pods': '1' },
  },
];

for (const tc of usage) {
  test(`TestPodEvaluatorUsage: ${tc.name}`, () => {
    assert.deepEqual(toWire(podUsage(tc.pod, Date.parse('2025-01-01T00:01:00Z'))), tc.usage);
  });
}

test('TestServiceEvaluatorUsage: load balancers count their node ports unless allocation is off', () => {
  const svc = evaluatorFor({ group: '', resource: 'services' });
  const lb: Service = { spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 81 }] } };
  assert.deepEqual(toWire(svc.usage(lb, 0)), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
  const noAlloc: Service = { spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30001 }, { port: 81 }] } };
  assert.deepEqual(toWire(svc.usage(noAlloc, 0)), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
});
