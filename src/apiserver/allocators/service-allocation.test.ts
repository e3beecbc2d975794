import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import { ApiError } from '../../api/errors.js';
import { defaultService } from '../validation/defaults.js';
import { validateService } from '../validation/service.js';
import { calculateIPRangeOffset, IPAllocator, kubernetesServiceIP, parseCidr } from './ip-allocator.js';
import { ServiceAllocation } from './service-allocation.js';

function svc(name: string, spec: Service['spec']): Service {
  const s: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' } };
  if (spec !== undefined) s.spec = spec;
  defaultService(s);
  return s;
}

test('a NodePort below the range is the 422 of a real 1.32 API server', () => {
  // shared/fixtures/apiserver-1.32/errors/422-nodeport-range.json
  const fixture = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Service "np" is invalid: spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. The range of valid ports is 30000-32767',
    reason: 'Invalid',
    details: {
      name: 'np',
      kind: 'Service',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 29999: provided port is not in the valid range. The range of valid ports is 30000-32767', field: 'spec.ports[0].nodePort' }],
    },
    code: 422,
  };
  const alloc = new ServiceAllocation();
  const s = svc('np', { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80, nodePort: 29999 }] });
  assert.throws(
    () => alloc.allocateCreate(s),
    (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.deepEqual(e.toStatus(), fixture);
      return true;
    },
  );
  assert.equal(alloc.clusterIPs.used(), 0, 'the cluster IP allocated before the failure is given back');
});

test('a taken node port: provided port is already allocated', () => {
  const alloc = new ServiceAllocation();
  alloc.allocateCreate(svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })).commit();
  assert.throws(() => alloc.allocateCreate(svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })), {
    message: 'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
  });
});

test('create: ClusterIP gets a cluster IP, families and policy; the result validates', () => {
  const alloc = new ServiceAllocation();
  const s = svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
  alloc.allocateCreate(s).commit();
  const ip = s.spec?.clusterIP ?? '';
  assert.ok(alloc.clusterIPs.has(ip));
  assert.deepEqual(s.spec?.clusterIPs, [ip]);
  assert.deepEqual(s.spec?.ipFamilies, ['IPv4']);
  assert.equal(s.spec?.ipFamilyPolicy, 'SingleStack');
  assert.equal(s.spec?.ports?.[0]?.nodePort, undefined);
  assert.deepEqual(validateService(s), []);
});

test('create: a NodePort service gets node ports; same port number with another protocol shares one', () => {
  const alloc = new ServiceAllocation();
  const s = svc('dns', {
    type: 'NodePort',
    selector: { app: 'dns' },
    ports: [
      { name: 'dns-udp', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153 },
    ],
  });
  alloc.allocateCreate(s).commit();
  const [udp, tcp, metrics] = (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
  assert.ok(udp !== undefined && udp >= 30086 && udp <= 32767);
  assert.equal(tcp, udp);
  assert.notEqual(metrics, udp);
  assert.equal(alloc.nodePorts.used(), 2);
  assert.equal(s.spec?.externalTrafficPolicy, 'Cluster');
  assert.deepEqual(validateService(s), []);
});

test('create: LoadBalancer with Local traffic gets a health check node port; allocateLoadBalancerNodePorts false skips node ports', () => {
  const alloc = new ServiceAllocation();
  const lb = svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { a: 'b' }, ports: [{ port: 443 }] });
  alloc.allocateCreate(lb).commit();
  assert.ok((lb.spec?.healthCheckNodePort ?? 0) >= 30000);
  assert.ok((lb.spec?.ports?.[0]?.nodePort ?? 0) >= 30000);
  assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
  const noNp = svc('lb2', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, selector: { a: 'b' }, ports: [{ port: 443 }] });
  alloc.allocateCreate(noNp).commit();
  assert.equal(noNp.spec?.ports?.[0]?.nodePort, undefined);
});

test('create: headless and ExternalName services get no cluster IP', () => {
  const alloc = new ServiceAllocation();
  const headless = svc('h', { clusterIP: 'None', selector: { a: 'b' }, ports: [{ port: 80 }] });
  alloc.allocateCreate(headless).commit();
  assert.deepEqual(headless.spec?.clusterIPs, ['None']);
  assert.deepEqual(headless.spec?.ipFamilies, ['IPv4']);
  assert.equal(headless.spec?.ipFamilyPolicy, 'SingleStack');
  const selectorless = svc('hs', { clusterIP: 'None', ports: [{ port: 80 }] });
  alloc.allocateCreate(selectorless).commit();
  assert.equal(selectorless.spec?.ipFamilyPolicy, 'RequireDualStack');
  assert.deepEqual(selectorless.spec?.ipFamilies, ['IPv4', 'IPv6']);
  const ext = svc('e', { type: 'ExternalName', externalName: 'example.com' });
  alloc.allocateCreate(ext).commit();
  assert.equal(ext.spec?.clusterIP, undefined);
  assert.equal(ext.spec?.ipFamilies, undefined);
  assert.equal(alloc.clusterIPs.used(), 0);
});

test('create: a requested cluster IP outside the CIDR or taken reads as upstream', () => {
  const alloc = new ServiceAllocation();
  assert.throws(() => alloc.allocateCreate(svc('x', { clusterIP: '1.1.1.1', ports: [{ port: 80 }] })), {
    message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"1.1.1.1"}: failed to allocate IP 1.1.1.1: the provided IP (1.1.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  });
  alloc.allocateCreate(svc('kubernetes', { clusterIP: '10.96.0.1', ports: [{ port: 443 }] })).commit();
  assert.throws(() => alloc.allocateCreate(svc('y', { clusterIP: '10.96.0.1', ports: [{ port: 80 }] })), {
    message: 'Service "y" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
  });
  assert.throws(() => alloc.allocateCreate(svc('z', { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] })), {
    message: 'Service "z" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
  });
});

test('update: omitted allocated values are kept; changing type to ClusterIP releases node ports on commit', () => {
  const alloc = new ServiceAllocation();
  const created = svc('web', { type: 'NodePort', selector: { a: 'b' }, ports: [{ name: 'http', port: 80 }] });
  alloc.allocateCreate(created).commit();
  const np = created.spec?.ports?.[0]?.nodePort ?? 0;
  const applied = svc('web', { type: 'NodePort', selector: { a: 'b' }, ports: [{ name: 'http', port: 80 }] });
  alloc.allocateUpdate(applied, created).commit();
  assert.equal(applied.spec?.ports?.[0]?.nodePort, np);
  assert.equal(applied.spec?.clusterIP, created.spec?.clusterIP);
  const toClusterIP = structuredClone(applied);
  if (toClusterIP.spec !== undefined) toClusterIP.spec.type = 'ClusterIP';
  for (const p of toClusterIP.spec?.ports ?? []) delete p.nodePort;
  const txn = alloc.allocateUpdate(toClusterIP, applied);
  assert.ok(alloc.nodePorts.has(np), 'released only on commit');
  txn.commit();
  assert.ok(!alloc.nodePorts.has(np));
});

test('update: a failed store reverts new allocations; delete releases everything', () => {
  const alloc = new ServiceAllocation();
  const a = svc('a', { selector: { x: 'y' }, ports: [{ port: 80 }] });
  alloc.allocateCreate(a).commit();
  const b = structuredClone(a);
  if (b.spec !== undefined) b.spec.type = 'NodePort';
  const txn = alloc.allocateUpdate(b, a);
  const np = b.spec?.ports?.[0]?.nodePort ?? 0;
  assert.ok(alloc.nodePorts.has(np));
  txn.revert();
  assert.ok(!alloc.nodePorts.has(np));
  alloc.release(a);
  assert.equal(alloc.clusterIPs.used(), 0);
});

test('dry run allocates nothing but fills the fields', () => {
  const alloc = new ServiceAllocation();
  const s = svc('d', { type: 'NodePort', selector: { a: 'b' }, ports: [{ port: 80 }] });
  alloc.allocateCreate(s, { dryRun: true });
  assert.ok((s.spec?.clusterIP ?? '') !== '');
  assert.equal(alloc.clusterIPs.used(), 0);
  assert.equal(alloc.nodePorts.used(), 0);
});

test('rebuild from stored services', () => {
  const alloc = new ServiceAllocation();
  const stored: Service[] = [
    { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ port: 443 }] } },
    { metadata: { name: 'np', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.10.10', clusterIPs: ['10.96.10.10'], ports: [{ port: 80, nodePort: 30080 }] } },
    { metadata: { name: 'dup', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.10.11', clusterIPs: ['10.96.10.11'], ports: [{ port: 80, nodePort: 30080 }] } },
  ];
  const problems = alloc.rebuild(stored);
  assert.deepEqual(problems, ['Port 30080 of service default/dup: provided port is already allocated']);
  assert.ok(alloc.clusterIPs.has('10.96.0.1'));
  assert.ok(alloc.nodePorts.has(30080));
});

test('the service CIDR: 10.96.0.0/12, static band of 256, kubernetes service at 10.96.0.1', () => {
  assert.equal(kubernetesServiceIP(), '10.96.0.1');
  assert.equal(calculateIPRangeOffset(parseCidr('10.96.0.0/12')), 256);
  const cases: [string, number][] = [
    ['192.168.1.1/32', 0],
    ['192.168.1.1/30', 0],
    ['192.168.1.1/28', 0],
    ['192.168.1.1/27', 16],
    ['192.168.1.1/22', 64],
    ['192.168.1.1/8', 256],
  ];
  for (const [cidr, want] of cases) assert.equal(calculateIPRangeOffset(parseCidr(cidr)), want, cidr);
  const ips = new IPAllocator({ cidr: '10.0.0.0/27', random: () => 0 });
  assert.equal(ips.free(), 30);
  const first = ips.allocateNext();
  assert.equal(first, '10.0.0.17', 'dynamic band first: offset 16 from 10.0.0.1');
});

test('update: NodePort to ClusterIP with the node ports still in the body drops them, and validates', () => {
  const alloc = new ServiceAllocation();
  const created = svc('web', { type: 'NodePort', selector: { a: 'b' }, ports: [{ name: 'http', port: 80 }] });
  alloc.allocateCreate(created).commit();
  const np = created.spec?.ports?.[0]?.nodePort ?? 0;
  const cur = structuredClone(created);
  if (cur.spec !== undefined) cur.spec.type = 'ClusterIP';
  alloc.allocateUpdate(cur, created).commit();
  assert.equal(cur.spec?.ports?.[0]?.nodePort, undefined);
  assert.equal(cur.spec?.externalTrafficPolicy, undefined);
  assert.ok(!alloc.nodePorts.has(np));
  assert.deepEqual(validateService(cur), []);
});
