import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostPlatformVector, normalizePlatform, platformMatches, selectPlatform, windowsHostAndContainerCompatible } from './platform.js';

// containerd/platforms platform_windows_compat_test.go, TestWindowsCompat (HEAD), case by case.
const compatCases: Array<{ name: string; host: string; ctr: string; want: boolean }> = [
  { name: 'RS5Host_ltsc2019Ctr', host: '10.0.17763', ctr: '10.0.17763', want: true },
  { name: 'RS5Host_ltsc2022Ctr', host: '10.0.17763', ctr: '10.0.20348', want: false },
  { name: 'WS2022Host_ltsc2019Ctr', host: '10.0.20348', ctr: '10.0.17763', want: false },
  { name: 'WS2022Host_ltsc2022Ctr', host: '10.0.20348', ctr: '10.0.20348', want: true },
  { name: 'Wind11Host_ltsc2019Ctr', host: '10.0.22621', ctr: '10.0.17763', want: false },
  { name: 'Wind11Host_ltsc2022Ctr', host: '10.0.22621', ctr: '10.0.20348', want: true },
  { name: 'WS2025Host_ltsc2019Ctr', host: '10.0.26100', ctr: '10.0.17763', want: false },
  { name: 'WS2025Host_ltsc2022Ctr', host: '10.0.26100', ctr: '10.0.20348', want: true },
  { name: 'WS2025Host_ltsc2025Ctr', host: '10.0.26100', ctr: '10.0.26100', want: true },
  { name: 'WS2022Host_ltsc2025Ctr', host: '10.0.20348', ctr: '10.0.26100', want: false },
  { name: 'WS23H2Host_ltsc2022Ctr', host: '10.0.25398', ctr: '10.0.20348', want: true },
  { name: 'WS23H2Host_ltsc2025Ctr', host: '10.0.25398', ctr: '10.0.26100', want: false },
  { name: 'HostAfter2025_ltsc2022Ctr', host: '10.0.26200', ctr: '10.0.20348', want: true },
  { name: 'HostAfter2025_ltsc2025Ctr', host: '10.0.26200', ctr: '10.0.26100', want: true },
  { name: 'DifferentMajorVersion', host: '11.0.20348', ctr: '10.0.20348', want: false },
  { name: 'DifferentMinorVersion', host: '10.1.20348', ctr: '10.0.20348', want: false },
];

for (const tc of compatCases) {
  void test(`windows compat: ${tc.name}`, () => {
    assert.equal(windowsHostAndContainerCompatible(tc.host, tc.ctr), tc.want);
  });
}

void test('normalize maps aliases as containerd does', () => {
  assert.deepEqual(normalizePlatform({ os: 'Linux', architecture: 'aarch64' }), { os: 'linux', architecture: 'arm64' });
  assert.deepEqual(normalizePlatform({ os: 'linux', architecture: 'arm64', variant: 'v8' }), { os: 'linux', architecture: 'arm64' });
  assert.deepEqual(normalizePlatform({ os: 'linux', architecture: 'x86_64' }), { os: 'linux', architecture: 'amd64' });
  assert.deepEqual(normalizePlatform({ os: 'linux', architecture: 'armhf' }), { os: 'linux', architecture: 'arm', variant: 'v7' });
  assert.deepEqual(normalizePlatform({ os: 'linux', architecture: 'arm' }), { os: 'linux', architecture: 'arm', variant: 'v7' });
});

void test('an arm64 host accepts arm64 first, then 32-bit arm variants', () => {
  const v = hostPlatformVector({ os: 'linux', architecture: 'arm64' });
  assert.deepEqual(v.map((p) => [p.architecture, p.variant ?? '']), [
    ['arm64', ''],
    ['arm', 'v8'],
    ['arm', 'v7'],
    ['arm', 'v6'],
    ['arm', 'v5'],
  ]);
});

void test('an amd64 host accepts 386 but not arm64', () => {
  assert.equal(platformMatches({ os: 'linux', architecture: 'amd64' }, { os: 'linux', architecture: '386' }), true);
  assert.equal(platformMatches({ os: 'linux', architecture: 'amd64' }, { os: 'linux', architecture: 'arm64' }), false);
});

void test('a Linux image never matches a Windows host, nor the reverse', () => {
  assert.equal(platformMatches({ os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' }, { os: 'linux', architecture: 'amd64' }), false);
  assert.equal(platformMatches({ os: 'linux', architecture: 'amd64' }, { os: 'windows', architecture: 'amd64' }), false);
});

void test('a Windows image without os.version (HostProcess) matches every Windows build', () => {
  for (const b of ['10.0.17763.1', '10.0.20348.1', '10.0.26100.1']) {
    assert.equal(platformMatches({ os: 'windows', architecture: 'amd64', osVersion: b }, { os: 'windows', architecture: 'amd64' }), true);
  }
});

void test('selection prefers the host architecture over a compatible one', () => {
  const i = selectPlatform({ os: 'linux', architecture: 'arm64' }, [
    { os: 'linux', architecture: 'arm', variant: 'v7' },
    { os: 'linux', architecture: 'arm64', variant: 'v8' },
  ]);
  assert.equal(i, 1);
});

void test('a 2025 host prefers its own build, then the newest compatible one', () => {
  const host = { os: 'windows', architecture: 'amd64', osVersion: '10.0.26100.2314' };
  const all = [
    { os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' },
    { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' },
    { os: 'windows', architecture: 'amd64', osVersion: '10.0.26100.2314' },
  ];
  assert.equal(selectPlatform(host, all), 2);
  assert.equal(selectPlatform(host, all.slice(0, 2)), 1);
  assert.equal(selectPlatform(host, all.slice(0, 1)), -1);
});

void test('a host platform\'s vector is computed once, shared read-only, and right however many hosts asked before', () => {
  const arm = hostPlatformVector({ os: 'Linux', architecture: 'aarch64' });
  assert.equal(hostPlatformVector({ os: 'linux', architecture: 'arm64', variant: 'v8' }), arm, 'the same normalized host shares one vector');
  assert.ok(Object.isFrozen(arm));
  assert.notEqual(hostPlatformVector({ os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' }), hostPlatformVector({ os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' }));
  // More distinct hosts than the memo keeps: every answer is still the host's own vector.
  for (let i = 0; i < 200; i++) {
    const v = hostPlatformVector({ os: 'windows', architecture: 'amd64', osVersion: `10.0.20348.${i}` });
    assert.deepEqual(v.map((p) => p.osVersion), ['10.0.20348.' + String(i), '10.0.20348.' + String(i)]);
    assert.deepEqual(v.map((p) => p.architecture), ['amd64', '386']);
  }
  assert.deepEqual(hostPlatformVector({ os: 'linux', architecture: 'arm64' }), arm);
});
