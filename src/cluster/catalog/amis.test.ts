import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amiFamilies, amiTypes, defaultAmiFamily } from './amis.js';

const families: { name: string; os: string; archs: string[]; build?: string; osImage: string; kernelAmd64: string }[] = [
  {
    name: 'AmazonLinux2',
    os: 'linux',
    archs: ['amd64', 'arm64'],
    osImage: 'Amazon Linux 2',
    kernelAmd64: '5.10.234-225.895.amzn2.x86_64',
  },
  {
    name: 'AmazonLinux2023',
    os: 'linux',
    archs: ['amd64', 'arm64'],
    osImage: 'Amazon Linux 2023.6.20250203',
    kernelAmd64: '6.1.128-136.201.amzn2023.x86_64',
  },
  {
    name: 'Bottlerocket',
    os: 'linux',
    archs: ['amd64', 'arm64'],
    osImage: 'Bottlerocket OS 1.32.0 (aws-k8s-1.32)',
    kernelAmd64: '6.1.128',
  },
  { name: 'Ubuntu2004', os: 'linux', archs: ['amd64', 'arm64'], osImage: 'Ubuntu 20.04.6 LTS', kernelAmd64: '5.15.0-1075-aws' },
  { name: 'Ubuntu2204', os: 'linux', archs: ['amd64', 'arm64'], osImage: 'Ubuntu 22.04.5 LTS', kernelAmd64: '6.8.0-1021-aws' },
  {
    name: 'WindowsServer2019CoreContainer',
    os: 'windows',
    archs: ['amd64'],
    build: '10.0.17763',
    osImage: 'Windows Server 2019 Datacenter',
    kernelAmd64: '10.0.17763.6532',
  },
  {
    name: 'WindowsServer2019FullContainer',
    os: 'windows',
    archs: ['amd64'],
    build: '10.0.17763',
    osImage: 'Windows Server 2019 Datacenter',
    kernelAmd64: '10.0.17763.6532',
  },
  {
    name: 'WindowsServer2022CoreContainer',
    os: 'windows',
    archs: ['amd64'],
    build: '10.0.20348',
    osImage: 'Windows Server 2022 Datacenter',
    kernelAmd64: '10.0.20348.2849',
  },
  {
    name: 'WindowsServer2022FullContainer',
    os: 'windows',
    archs: ['amd64'],
    build: '10.0.20348',
    osImage: 'Windows Server 2022 Datacenter',
    kernelAmd64: '10.0.20348.2849',
  },
];

for (const f of families) {
  void test(`amiFamily ${f.name} gives ${f.osImage}`, () => {
    const fam = amiFamilies.get(f.name);
    assert.ok(fam);
    assert.equal(fam.os, f.os);
    assert.deepEqual([...fam.archs], f.archs);
    assert.equal(fam.windowsBuild, f.build);
    assert.equal(fam.osImage, f.osImage);
    assert.equal(fam.kernelVersion('amd64'), f.kernelAmd64);
  });
}

void test('Linux kernels name the machine architecture', () => {
  assert.equal(amiFamilies.get('AmazonLinux2')?.kernelVersion('arm64'), '5.10.234-225.895.amzn2.aarch64');
  assert.equal(amiFamilies.get('AmazonLinux2023')?.kernelVersion('arm64'), '6.1.128-136.201.amzn2023.aarch64');
});

void test('eksctl default amiFamily is AmazonLinux2023', () => {
  assert.equal(defaultAmiFamily, 'AmazonLinux2023');
  assert.ok(amiFamilies.has(defaultAmiFamily));
});

const typeCases: [string, string, string][] = [
  ['AL2_x86_64', 'AmazonLinux2', 'amd64'],
  ['AL2_ARM_64', 'AmazonLinux2', 'arm64'],
  ['AL2023_x86_64_STANDARD', 'AmazonLinux2023', 'amd64'],
  ['AL2023_ARM_64_STANDARD', 'AmazonLinux2023', 'arm64'],
  ['BOTTLEROCKET_x86_64', 'Bottlerocket', 'amd64'],
  ['BOTTLEROCKET_ARM_64', 'Bottlerocket', 'arm64'],
  ['WINDOWS_CORE_2019_x86_64', 'WindowsServer2019CoreContainer', 'amd64'],
  ['WINDOWS_FULL_2019_x86_64', 'WindowsServer2019FullContainer', 'amd64'],
  ['WINDOWS_CORE_2022_x86_64', 'WindowsServer2022CoreContainer', 'amd64'],
  ['WINDOWS_FULL_2022_x86_64', 'WindowsServer2022FullContainer', 'amd64'],
];
for (const [name, family, arch] of typeCases) {
  void test(`amiType ${name} runs ${family} on ${arch}`, () => {
    const t = amiTypes.get(name);
    assert.deepEqual(t, { name, family, arch });
  });
  void test(`amiFamily ${family} on ${arch} uses amiType ${name}`, () => {
    assert.equal(amiFamilies.get(family)?.amiType(arch as 'amd64' | 'arm64'), name);
  });
}
