import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { admitPod, podRequests, rejectionMessage } from './admission.js';
import { linuxSpec, makePod, nodeOf, win2019Spec } from './_builders.test-helpers.js';

const linux = nodeOf(linuxSpec);
const windows = nodeOf(win2019Spec);

function withAllocatable(node: Node, a: Record<string, string>): Node {
  const n = structuredClone(node);
  n.status!.allocatable = { ...n.status!.allocatable, ...a };
  return n;
}

// predicate_test.go TestRejectPodAdmissionBasedOnOSSelector / TestRejectPodAdmissionBasedOnOSField and
// TestGeneralPredicates, with the kubelet's OS standing in for runtime.GOOS.
const cases: Array<{ name: string; run: () => ReturnType<typeof admitPod>; want: { reason: string; message: string } | 'admit' }> = [
  {
    name: 'OS label match',
    run: () => admitPod(makePod('p').labels({ 'kubernetes.io/os': 'linux' }).obj(), linux, [], 'linux'),
    want: 'admit',
  },
  {
    name: 'dummyOS label, but the underlying OS matches',
    run: () => admitPod(makePod('p').labels({ 'kubernetes.io/os': 'windows' }).obj(), linux, [], 'linux'),
    want: { reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label" },
  },
  {
    name: 'a nodeSelector on kubernetes.io/os is not the OS label check (a code quirk: labels, not selector)',
    run: () => admitPod(makePod('p').spec({ nodeSelector: { 'kubernetes.io/os': 'windows' } }).obj(), linux, [], 'linux'),
    want: { reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" },
  },
  {
    name: 'OS field mismatch',
    run: () => admitPod(makePod('p').spec({ os: { name: 'windows' } }).obj(), linux, [], 'linux'),
    want: { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" },
  },
  {
    name: 'OS field match',
    run: () => admitPod(makePod('p').spec({ os: { name: 'windows' }, tolerations: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] }).obj(), windows, [], 'windows'),
    want: 'admit',
  },
  {
    name: 'the OS checks run before the resource checks',
    run: () =>
      admitPod(
        makePod('p').spec({ os: { name: 'windows' } }).container({ name: 'big', resources: { requests: { cpu: '100' } } }).obj(),
        linux,
        [],
        'linux',
      ),
    want: { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" },
  },
  {
    name: 'no resources/port/host requested always fits',
    run: () => admitPod(makePod('p').obj(), linux, [makePod('q').obj()], 'linux'),
    want: 'admit',
  },
  {
    name: 'not enough cpu and memory resource: cpu is reported first',
    run: () =>
      admitPod(
        makePod('p').container({ name: 'c', resources: { requests: { cpu: '8', memory: '20Gi' } } }).obj(),
        withAllocatable(linux, { cpu: '10', memory: '20Gi' }),
        [makePod('q').container({ name: 'c', resources: { requests: { cpu: '5', memory: '19Gi' } } }).obj()],
        'linux',
      ),
    want: { reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 8000, used: 5000, capacity: 10000" },
  },
  {
    name: 'not enough memory',
    run: () =>
      admitPod(
        makePod('p').container({ name: 'c', resources: { requests: { memory: '2Gi' } } }).obj(),
        withAllocatable(linux, { memory: '3Gi' }),
        [makePod('q').container({ name: 'c', resources: { requests: { memory: '2Gi' } } }).obj()],
        'linux',
      ),
    want: { reason: 'OutOfmemory', message: "Node didn't have enough resource: memory, requested: 2147483648, used: 2147483648, capacity: 3221225472" },
  },
  {
    name: 'too many pods',
    run: () => admitPod(makePod('p').obj(), withAllocatable(linux, { pods: '1' }), [makePod('q').obj()], 'linux'),
    want: { reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1" },
  },
  {
    name: 'not enough GPU resource',
    run: () => admitPod(makePod('p').container({ name: 'c', resources: { requests: { 'nvidia.com/gpu': '1' } } }).obj(), linux, [], 'linux'),
    want: { reason: 'OutOfnvidia.com/gpu', message: "Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0, capacity: 0" },
  },
  {
    name: 'host not match',
    run: () => admitPod(makePod('p').spec({ nodeName: 'other-node' }).obj(), linux, [], 'linux'),
    want: { reason: 'NodeName', message: "Predicate NodeName failed: node(s) didn't match the requested node name" },
  },
  {
    name: 'hostport conflict',
    run: () =>
      admitPod(
        makePod('p').container({ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }).obj(),
        linux,
        [makePod('q').container({ name: 'c', ports: [{ containerPort: 80, hostPort: 8080, hostIP: '127.0.0.1' }] }).obj()],
        'linux',
      ),
    want: { reason: 'NodePorts', message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" },
  },
  {
    name: 'required node affinity not matched',
    run: () =>
      admitPod(
        makePod('p')
          .spec({
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }],
                },
              },
            },
          })
          .obj(),
        linux,
        [],
        'linux',
      ),
    want: { reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" },
  },
  {
    name: 'NoSchedule taints are the scheduler\'s business, not the kubelet\'s',
    run: () => admitPod(makePod('p').obj(), windows, [], 'windows'),
    want: 'admit',
  },
  {
    name: 'an untolerated NoExecute taint rejects the pod',
    run: () => {
      const n = structuredClone(linux);
      n.spec!.taints = [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }];
      return admitPod(makePod('p').obj(), n, [], 'linux');
    },
    want: { reason: 'TaintToleration', message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate" },
  },
  {
    name: 'a tolerated NoExecute taint admits the pod',
    run: () => {
      const n = structuredClone(linux);
      n.spec!.taints = [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }];
      return admitPod(makePod('p').spec({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }).obj(), n, [], 'linux');
    },
    want: 'admit',
  },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const got = tc.run();
    if (tc.want === 'admit') assert.deepEqual(got, { admit: true });
    else assert.deepEqual(got, { admit: false, ...tc.want });
  });
}

void test('the rejected pod\'s status message', () => {
  assert.equal(rejectionMessage("Failed to admit pod as the OS field doesn't match node OS"), "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS");
});

void test('podRequests: counted once per pod object; a new version of the pod is counted afresh', () => {
  const pod = (cpu: string): Pod => ({ spec: { containers: [{ name: 'a', image: 'x', resources: { requests: { cpu, memory: '64Mi' } } }] } });
  const v1 = pod('250m');
  const first = podRequests(v1);
  assert.equal(podRequests(v1), first);
  assert.deepEqual([...first], [['cpu', 250], ['memory', 64 * 1024 * 1024]]);
  assert.deepEqual([...podRequests(pod('1'))], [['cpu', 1000], ['memory', 64 * 1024 * 1024]]);
});

void test('podRequests: a regular init container before a sidecar counts alone (resourcehelper.PodRequests), not with the later sidecar', () => {
  const pod: Pod = {
    spec: {
      initContainers: [
        { name: 'init', image: 'x', resources: { requests: { cpu: '500m' } } },
        { name: 'sidecar', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '300m' } } },
      ],
      containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: '100m' } } }],
    },
  };
  // max(100m + 300m, 500m): the sidecar starts after the init container has finished.
  assert.deepEqual([...podRequests(pod)], [['cpu', 500]]);
});
