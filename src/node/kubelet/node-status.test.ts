import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialNode, nodeConditions } from './node-status.js';
import { linuxSpec, win2022Spec } from './_builders.test-helpers.js';

void test('a Windows node registers with the kubelet\'s labels, nodeInfo and taints', () => {
  const n = initialNode(win2022Spec, { now: '2026-01-01T00:00:00Z', networkReady: false });
  assert.deepEqual(n.metadata?.labels, {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'windows',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': 'windows-2022-1',
    'kubernetes.io/os': 'windows',
    'node.kubernetes.io/windows-build': '10.0.20348',
  });
  assert.deepEqual(n.spec?.taints, [{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
  assert.equal(n.spec?.podCIDR, '10.244.5.0/24');
  const info = n.status?.nodeInfo;
  assert.equal(info?.osImage, 'Windows Server 2022 Datacenter');
  assert.equal(info?.kernelVersion, '10.0.20348.2849');
  assert.match(info?.containerRuntimeVersion ?? '', /^containerd:\/\/1\.7\.\d+$/);
  assert.match(info?.kubeletVersion ?? '', /^v1\.32\.\d+$/);
  assert.equal(info?.operatingSystem, 'windows');
  assert.equal(info?.architecture, 'amd64');
  assert.match(info?.machineID ?? '', /^[0-9a-f]{32}$/);
  assert.deepEqual(n.status?.addresses, [
    { type: 'InternalIP', address: '127.0.1.6' },
    { type: 'Hostname', address: 'windows-2022-1' },
  ]);
  assert.deepEqual(n.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  assert.equal(n.status?.capacity?.['hugepages-2Mi'], undefined);
});

void test('a Linux node reports hugepages and Ubuntu', () => {
  const n = initialNode(linuxSpec, { now: '2026-01-01T00:00:00Z', networkReady: true });
  assert.equal(n.status?.nodeInfo?.osImage, 'Ubuntu 22.04.4 LTS');
  assert.equal(n.status?.nodeInfo?.kernelVersion, '5.15.0-1057-aws');
  assert.deepEqual(n.status?.capacity, { cpu: '4', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16Gi', pods: '110' });
  assert.equal(n.metadata?.labels?.['node.kubernetes.io/windows-build'], undefined);
});

void test('conditions: upstream reasons and messages; Ready False with the CNI message until the network is ready', () => {
  const t0 = '2026-01-01T00:00:00Z';
  const notReady = nodeConditions(false, t0);
  assert.deepEqual(
    notReady.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
      [
        'Ready',
        'False',
        'KubeletNotReady',
        'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
      ],
    ],
  );
  const t1 = '2026-01-01T00:00:10Z';
  const ready = nodeConditions(true, t1, notReady);
  const r = ready.find((c) => c.type === 'Ready');
  assert.deepEqual([r?.status, r?.reason, r?.message, r?.lastTransitionTime, r?.lastHeartbeatTime], ['True', 'KubeletReady', 'kubelet is posting ready status', t1, t1]);
  const mem = ready.find((c) => c.type === 'MemoryPressure');
  assert.equal(mem?.lastTransitionTime, t0);
  assert.equal(mem?.lastHeartbeatTime, t1);
});
