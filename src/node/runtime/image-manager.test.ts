import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, formatGoDuration } from './backoff.js';
import { createDefaultCatalog } from './builtin-images.js';
import { ImageManager, defaultPullPolicy } from './image-manager.js';
import { NodeImageStore } from './image-store.js';
import type { Platform } from './platform.js';

function manager(host: Platform = { os: 'linux', architecture: 'amd64' }) {
  return new ImageManager({ catalog: createDefaultCatalog(), store: new NodeImageStore(), host, bandwidthBytesPerSecond: 100_000_000, pullLatencyMs: 200 });
}

void test('Go duration strings', () => {
  assert.equal(formatGoDuration(830), '830ms');
  assert.equal(formatGoDuration(1234), '1.234s');
  assert.equal(formatGoDuration(1500), '1.5s');
  assert.equal(formatGoDuration(10_000), '10s');
  assert.equal(formatGoDuration(80_000), '1m20s');
  assert.equal(formatGoDuration(300_000), '5m0s');
  assert.equal(formatGoDuration(0), '0s');
});

void test('default pull policy: Always for latest or no tag, IfNotPresent otherwise', () => {
  assert.equal(defaultPullPolicy('nginx'), 'Always');
  assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
  assert.equal(defaultPullPolicy('nginx:1.27'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79'), 'IfNotPresent');
});

void test('a pull takes time from size and bandwidth, then the image is present', () => {
  const m = manager();
  const r = m.ensureImageExists('uid1', 'nginx:1.27', 'IfNotPresent', 1_000_000);
  assert.equal(r.kind, 'pulling');
  if (r.kind !== 'pulling') return;
  assert.deepEqual(r.events, [{ type: 'Normal', reason: 'Pulling', message: 'Pulling image "nginx:1.27"' }]);
  assert.equal(r.pull.doneAtMs - 1_000_000, 200 + Math.round(72_099_410 / 100_000));
  const done = m.completePull(r.pull);
  assert.equal(done.kind, 'pulled');
  assert.equal(done.events[0]?.message, 'Successfully pulled image "nginx:1.27" in 921ms (921ms including waiting). Image size: 72099410 bytes.');
  const again = m.ensureImageExists('uid2', 'nginx:1.27', 'IfNotPresent', 2_000_000);
  assert.equal(again.kind, 'present');
  assert.deepEqual(again.events, [{ type: 'Normal', reason: 'Pulled', message: 'Container image "nginx:1.27" already present on machine' }]);
});

void test('pulls are serialized: the second waits for the first', () => {
  const m = manager();
  const a = m.ensureImageExists('u1', 'nginx:1.27', undefined, 0);
  const b = m.ensureImageExists('u2', 'busybox:1.36', undefined, 100);
  assert.ok(a.kind === 'pulling' && b.kind === 'pulling');
  if (a.kind !== 'pulling' || b.kind !== 'pulling') return;
  assert.equal(b.pull.startedAtMs, a.pull.doneAtMs);
  m.completePull(a.pull);
  const done = m.completePull(b.pull);
  assert.match(done.events[0]?.message ?? '', /^Successfully pulled image "busybox:1\.36" in 222ms \(1\.043s including waiting\)\. Image size: 2166802 bytes\.$/);
});

void test('a pull queued behind a pull of the same image finds its content present: only the round trip', () => {
  const m = manager({ os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6414' });
  const image = 'mcr.microsoft.com/windows/servercore:ltsc2019';
  const a = m.ensureImageExists('u1', image, 'IfNotPresent', 0);
  const b = m.ensureImageExists('u2', image, 'IfNotPresent', 500);
  assert.ok(a.kind === 'pulling' && b.kind === 'pulling');
  if (a.kind !== 'pulling' || b.kind !== 'pulling') return;
  assert.ok(a.pull.doneAtMs > 10_000, 'the first pull downloads the layers');
  assert.equal(b.pull.startedAtMs, a.pull.doneAtMs);
  assert.equal(b.pull.doneAtMs, a.pull.doneAtMs + 200);
  const first = m.completePull(a.pull);
  const second = m.completePull(b.pull);
  assert.ok(first.kind === 'pulled' && second.kind === 'pulled');
  assert.equal(
    second.events[0]?.message,
    `Successfully pulled image "${image}" in 200ms (${formatGoDuration(a.pull.doneAtMs + 200 - 500)} including waiting). Image size: ${first.kind === 'pulled' ? first.image.sizeBytes : 0} bytes.`,
  );
});

void test('a failed pull brings no content: the next pull of that name is not shortened', () => {
  const m = manager({ os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' });
  const wrong = m.ensureImageExists('u1', 'mcr.microsoft.com/windows/servercore:ltsc2019', 'IfNotPresent', 0);
  const right = m.ensureImageExists('u2', 'mcr.microsoft.com/windows/servercore:ltsc2022', 'IfNotPresent', 0);
  assert.ok(wrong.kind === 'pulling' && right.kind === 'pulling');
  if (wrong.kind !== 'pulling' || right.kind !== 'pulling') return;
  assert.equal(wrong.pull.doneAtMs - wrong.pull.startedAtMs, 200);
  assert.ok(right.pull.doneAtMs - right.pull.startedAtMs > 10_000);
});

void test('pull policy Always pulls even when present', () => {
  const m = manager();
  const r = m.ensureImageExists('u', 'nginx:1.27', 'IfNotPresent', 0);
  if (r.kind === 'pulling') m.completePull(r.pull);
  const again = m.ensureImageExists('u', 'nginx:1.27', 'Always', 10_000);
  assert.equal(again.kind, 'pulling');
  if (again.kind === 'pulling') assert.equal(again.pull.doneAtMs - again.pull.startedAtMs, 200, 'the layers are present: only the round trip');
});

void test('pull policy Never with a missing image: ErrImageNeverPull with upstream\'s message', () => {
  const r = manager().ensureImageExists('u', 'nginx:1.27', 'Never', 0);
  assert.equal(r.kind, 'error');
  assert.ok(r.kind === 'error');
  if (r.kind !== 'error') return;
  assert.equal(r.reason, 'ErrImageNeverPull');
  assert.equal(r.message, 'Container image "nginx:1.27" is not present with pull policy of Never');
  assert.deepEqual(r.events, [{ type: 'Warning', reason: 'ErrImageNeverPull', message: 'Container image "nginx:1.27" is not present with pull policy of Never' }]);
});

void test('an invalid image name: InvalidImageName', () => {
  const r = manager().ensureImageExists('u', 'Nginx', undefined, 0);
  assert.ok(r.kind === 'error' && r.reason === 'InvalidImageName');
});

void test('failed pulls back off 10s doubling to 300s (fake clock)', () => {
  const host = { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' };
  const m = manager(host);
  const image = 'mcr.microsoft.com/windows/servercore:ltsc2019';
  let now = 0;
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = m.ensureImageExists('pod', image, 'IfNotPresent', now);
    assert.equal(r.kind, 'pulling', `attempt ${i}`);
    if (r.kind !== 'pulling') return;
    const out = m.completePull(r.pull);
    assert.equal(out.kind, 'error');
    if (out.kind !== 'error') return;
    assert.equal(out.reason, 'ErrImagePull');
    assert.equal(
      out.events[0]?.message,
      `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": no match for platform in manifest: not found`,
    );
    const retryAt = m.retryAtMs('pod', image)!;
    delays.push(retryAt - r.pull.doneAtMs);
    const during = m.ensureImageExists('pod', image, 'IfNotPresent', retryAt - 1);
    assert.ok(during.kind === 'error' && during.reason === 'ImagePullBackOff');
    if (during.kind === 'error') {
      assert.equal(during.message, `Back-off pulling image "${image}"`);
      assert.deepEqual(during.events, [{ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"` }]);
    }
    now = retryAt;
  }
  assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
});

void test('back-off of another pod is independent', () => {
  const b = new Backoff(10_000, 300_000);
  b.next('a', 0);
  assert.equal(b.isInBackOffSinceUpdate('a', 5_000), true);
  assert.equal(b.isInBackOffSinceUpdate('b', 5_000), false);
  assert.equal(b.isInBackOffSinceUpdate('a', 10_000), false);
});

void test('back-off starts over after 2 x max without failures', () => {
  const b = new Backoff(10_000, 300_000);
  b.next('a', 0);
  b.next('a', 1);
  assert.equal(b.get('a'), 20_000);
  assert.equal(b.next('a', 600_002), 10_000);
});

void test('node status images list repo digests then tags', () => {
  const store = new NodeImageStore();
  const m = new ImageManager({ catalog: createDefaultCatalog(), store, host: { os: 'linux', architecture: 'amd64' } });
  const r = m.ensureImageExists('u', 'nginx', undefined, 0);
  if (r.kind === 'pulling') m.completePull(r.pull);
  const images = store.nodeStatusImages();
  assert.equal(images.length, 1);
  assert.match(images[0]?.names?.[0] ?? '', /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  assert.equal(images[0]?.names?.[1], 'docker.io/library/nginx:latest');
  assert.equal(images[0]?.sizeBytes, 72_099_410);
});
