import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  eksCpuReservedMillis,
  eksMaxPods,
  eksMemoryReservedMiB,
  instanceTypes,
  linuxMaxPods,
  lookupInstanceType,
  windowsMaxPods,
} from './instance-types.js';

// The lines of awslabs/amazon-eks-ami templates/shared/runtime/eni-max-pods.txt for the catalog's types.
const eniMaxPodsTxt = `
c5.12xlarge 234
c5.18xlarge 737
c5.24xlarge 737
c5.2xlarge 58
c5.4xlarge 234
c5.9xlarge 234
c5.large 29
c5.xlarge 58
c6g.12xlarge 234
c6g.16xlarge 737
c6g.2xlarge 58
c6g.4xlarge 234
c6g.8xlarge 234
c6g.large 29
c6g.medium 8
c6g.xlarge 58
c6i.12xlarge 234
c6i.16xlarge 737
c6i.24xlarge 737
c6i.2xlarge 58
c6i.4xlarge 234
c6i.8xlarge 234
c6i.large 29
c6i.xlarge 58
c7g.12xlarge 234
c7g.16xlarge 737
c7g.2xlarge 58
c7g.4xlarge 234
c7g.8xlarge 234
c7g.large 29
c7g.medium 8
c7g.xlarge 58
c7i.12xlarge 234
c7i.16xlarge 737
c7i.24xlarge 737
c7i.2xlarge 58
c7i.4xlarge 234
c7i.8xlarge 234
c7i.large 29
c7i.xlarge 58
m5.12xlarge 234
m5.16xlarge 737
m5.24xlarge 737
m5.2xlarge 58
m5.4xlarge 234
m5.8xlarge 234
m5.large 29
m5.xlarge 58
m5a.12xlarge 234
m5a.16xlarge 737
m5a.24xlarge 737
m5a.2xlarge 58
m5a.4xlarge 234
m5a.8xlarge 234
m5a.large 29
m5a.xlarge 58
m6g.12xlarge 234
m6g.16xlarge 737
m6g.2xlarge 58
m6g.4xlarge 234
m6g.8xlarge 234
m6g.large 29
m6g.medium 8
m6g.xlarge 58
m6i.12xlarge 234
m6i.16xlarge 737
m6i.24xlarge 737
m6i.2xlarge 58
m6i.4xlarge 234
m6i.8xlarge 234
m6i.large 29
m6i.xlarge 58
m7g.12xlarge 234
m7g.16xlarge 737
m7g.2xlarge 58
m7g.4xlarge 234
m7g.8xlarge 234
m7g.large 29
m7g.medium 8
m7g.xlarge 58
m7i.12xlarge 234
m7i.16xlarge 737
m7i.24xlarge 737
m7i.2xlarge 58
m7i.4xlarge 234
m7i.8xlarge 234
m7i.large 29
m7i.xlarge 58
r5.12xlarge 234
r5.16xlarge 737
r5.24xlarge 737
r5.2xlarge 58
r5.4xlarge 234
r5.8xlarge 234
r5.large 29
r5.xlarge 58
r6g.12xlarge 234
r6g.16xlarge 737
r6g.2xlarge 58
r6g.4xlarge 234
r6g.8xlarge 234
r6g.large 29
r6g.medium 8
r6g.xlarge 58
r6i.12xlarge 234
r6i.16xlarge 737
r6i.24xlarge 737
r6i.2xlarge 58
r6i.4xlarge 234
r6i.8xlarge 234
r6i.large 29
r6i.xlarge 58
t3.2xlarge 58
t3.large 35
t3.medium 17
t3.micro 4
t3.nano 4
t3.small 11
t3.xlarge 58
t3a.2xlarge 58
t3a.large 35
t3a.medium 17
t3a.micro 4
t3a.nano 4
t3a.small 8
t3a.xlarge 58
t4g.2xlarge 58
t4g.large 35
t4g.medium 17
t4g.micro 4
t4g.nano 4
t4g.small 11
t4g.xlarge 58
`;

const expectedMaxPods = new Map(
  eniMaxPodsTxt
    .trim()
    .split('\n')
    .map((line) => {
      const [name = '', pods = ''] = line.split(' ');
      return [name, Number(pods)] as const;
    }),
);

void test('every catalog instance type gives the max pods of eni-max-pods.txt', () => {
  for (const [name, t] of instanceTypes) {
    assert.equal(linuxMaxPods(t), expectedMaxPods.get(name), name);
  }
});

void test('the catalog covers every eni-max-pods.txt line it was built from', () => {
  for (const name of expectedMaxPods.keys()) assert.ok(lookupInstanceType(name) !== undefined, name);
  assert.equal(instanceTypes.size, expectedMaxPods.size);
});

const shapes: { name: string; arch: string; vcpu: number; memoryMiB: number }[] = [
  { name: 't3.micro', arch: 'amd64', vcpu: 2, memoryMiB: 1024 },
  { name: 't3.medium', arch: 'amd64', vcpu: 2, memoryMiB: 4096 },
  { name: 't4g.large', arch: 'arm64', vcpu: 2, memoryMiB: 8192 },
  { name: 'm5.large', arch: 'amd64', vcpu: 2, memoryMiB: 8192 },
  { name: 'm5.xlarge', arch: 'amd64', vcpu: 4, memoryMiB: 16384 },
  { name: 'm6g.large', arch: 'arm64', vcpu: 2, memoryMiB: 8192 },
  { name: 'm6g.medium', arch: 'arm64', vcpu: 1, memoryMiB: 4096 },
  { name: 'm7i.16xlarge', arch: 'amd64', vcpu: 64, memoryMiB: 262144 },
  { name: 'c5.9xlarge', arch: 'amd64', vcpu: 36, memoryMiB: 73728 },
  { name: 'c7g.xlarge', arch: 'arm64', vcpu: 4, memoryMiB: 8192 },
  { name: 'r6i.2xlarge', arch: 'amd64', vcpu: 8, memoryMiB: 65536 },
  { name: 'r6g.large', arch: 'arm64', vcpu: 2, memoryMiB: 16384 },
];
for (const s of shapes) {
  void test(`${s.name} is ${s.arch} with ${s.vcpu} vCPUs and ${s.memoryMiB} MiB`, () => {
    const t = lookupInstanceType(s.name);
    assert.ok(t);
    assert.deepEqual({ name: t.name, arch: t.arch, vcpu: t.vcpu, memoryMiB: t.memoryMiB }, s);
  });
}

void test('unknown instance types are not in the catalog', () => {
  assert.equal(lookupInstanceType('m5.huge'), undefined);
  assert.equal(lookupInstanceType('p5.48xlarge'), undefined);
});

void test('Windows max pods are the IPv4 addresses of one ENI minus one', () => {
  const cases: [string, number][] = [
    ['m5.large', 9],
    ['m5.xlarge', 14],
    ['m5.4xlarge', 29],
    ['t3.medium', 5],
    ['t3.large', 11],
    ['c5.18xlarge', 49],
  ];
  for (const [name, pods] of cases) {
    const t = lookupInstanceType(name);
    assert.ok(t);
    assert.equal(windowsMaxPods(t), pods, name);
    assert.equal(eksMaxPods(t, 'windows'), pods, name);
  }
});

void test('kube-reserved cpu follows bootstrap.sh: 6% of the first core, 1% of the second, 0.5% up to 4, 0.25% above', () => {
  const cases: [number, number][] = [
    [1, 60],
    [2, 70],
    [4, 80],
    [8, 90],
    [16, 110],
    [36, 160],
    [64, 230],
    [96, 310],
  ];
  for (const [vcpu, millis] of cases) assert.equal(eksCpuReservedMillis(vcpu), millis, `${vcpu} vCPUs`);
});

void test('kube-reserved memory is 11 MiB per max pod plus 255 MiB', () => {
  assert.equal(eksMemoryReservedMiB(29), 574);
  assert.equal(eksMemoryReservedMiB(58), 893);
  assert.equal(eksMemoryReservedMiB(17), 442);
  assert.equal(eksMemoryReservedMiB(110), 1465);
});
