import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { waitFor, startController } from '../_testing/fakes.js';
import { servedPod, service } from '../_testing/services.js';
import { create, desiredSlices, podToEndpoint } from './endpointslice.js';

void test('podToEndpoint conditions', async (t) => {
  const cases = [
    { name: 'ready pod', ready: true, terminating: false, publish: false, want: { ready: true, serving: true, terminating: false } },
    { name: 'unready pod', ready: false, terminating: false, publish: false, want: { ready: false, serving: false, terminating: false } },
    { name: 'terminating ready pod is serving but not ready', ready: true, terminating: true, publish: false, want: { ready: false, serving: true, terminating: true } },
    { name: 'publishNotReadyAddresses makes every endpoint ready', ready: false, terminating: true, publish: true, want: { ready: true, serving: false, terminating: true } },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const pod = servedPod('a', 'web', '10.0.0.1', { ready: tc.ready, node: 'n1' });
      if (tc.terminating) (pod.metadata as { deletionTimestamp?: string }).deletionTimestamp = '2025-01-01T00:00:00Z';
      const node: Node = { metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'us-east-1a' } } };
      const ep = podToEndpoint(pod, node, service('web', [{ port: 80 }], { publishNotReadyAddresses: tc.publish }));
      assert.deepEqual(ep?.conditions, tc.want);
      assert.equal(ep?.zone, 'us-east-1a');
      assert.equal(ep?.nodeName, 'n1');
      assert.deepEqual(ep?.targetRef, { kind: 'Pod', namespace: 'default', name: 'a', uid: '' });
    });
  }
});

void test('desiredSlices groups endpoints by port mapping and caps slices at 100 endpoints', () => {
  const svc = service('web', [{ name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' }]);
  const pods: Pod[] = [];
  for (let i = 0; i < 150; i++) pods.push(servedPod(`p${String(i).padStart(3, '0')}`, 'web', `10.0.${Math.floor(i / 250)}.${i % 250}`, { ports: [{ name: 'web', containerPort: 8080 }] }));
  pods.push(servedPod('other', 'web', '10.1.0.1', { ports: [{ name: 'web', containerPort: 9090 }] }));
  const slices = desiredSlices(svc, pods, new Map());
  assert.deepEqual(
    slices.map((s) => [s.ports.map((p) => p.port), s.endpoints.length]),
    [
      [[8080], 100],
      [[8080], 50],
      [[9090], 1],
    ],
  );
});

void test('the controller owns labelled slices per Service and keeps a placeholder when empty', async (t) => {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  await client.create(resources.services, service('web', [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]));
  await waitFor(() => client.peekAll<EndpointSlice>(resources.endpointslices).length === 1);
  await ctx.settle();
  const placeholder = client.peekAll<EndpointSlice>(resources.endpointslices)[0];
  assert.deepEqual(placeholder?.endpoints, []);
  assert.match(placeholder?.metadata?.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.deepEqual(placeholder?.metadata?.labels, {
    app: 'web',
    'kubernetes.io/service-name': 'web',
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  assert.equal(placeholder?.metadata?.ownerReferences?.[0]?.kind, 'Service');
  assert.equal(placeholder?.addressType, 'IPv4');
  await client.create(resources.pods, servedPod('a', 'web', '10.0.0.1', { node: 'n1' }));
  await client.create(resources.pods, servedPod('b', 'web', '10.0.0.2', { node: 'n2', ready: false }));
  await waitFor(() => client.peekAll<EndpointSlice>(resources.endpointslices).some((s) => s.endpoints.length === 2));
  await ctx.settle();
  const slices = client.peekAll<EndpointSlice>(resources.endpointslices);
  assert.equal(slices.length, 1, 'the placeholder is reused, never duplicated');
  const s = slices[0];
  assert.deepEqual(s?.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  assert.deepEqual(
    s?.endpoints.map((e) => [e.addresses[0], e.conditions?.ready, e.nodeName]),
    [
      ['10.0.0.1', true, 'n1'],
      ['10.0.0.2', false, 'n2'],
    ],
  );
});
