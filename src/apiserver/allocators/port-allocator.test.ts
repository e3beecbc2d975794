import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateRangeOffset, parsePortRange, PortAllocatedError, PortAllocator, PortNotInRangeError, RangeFullError } from './port-allocator.js';

// pkg/registry/core/service/portallocator/allocator_test.go

test('TestAllocate', () => {
  const r = new PortAllocator({ range: '10000-10200' });
  assert.equal(r.free(), 201);
  assert.equal(r.used(), 0);
  const found = new Set<number>();
  let count = 0;
  while (r.free() > 0) {
    const p = r.allocateNext();
    count++;
    assert.ok(p >= 10000 && p <= 10200, `allocated ${p} which is outside of 10000-10200`);
    assert.ok(!found.has(p), `allocated ${p} twice @ ${count}`);
    found.add(p);
  }
  assert.throws(() => r.allocateNext(), RangeFullError);
  const released = 10005;
  r.release(released);
  assert.equal(r.free(), 1);
  assert.equal(r.used(), 200);
  assert.equal(r.allocateNext(), released);
  r.release(released);
  assert.throws(() => r.allocate(1), PortNotInRangeError);
  assert.throws(() => r.allocate(10001), PortAllocatedError);
  assert.throws(() => r.allocate(20000), PortNotInRangeError);
  assert.throws(() => r.allocate(10201), PortNotInRangeError);
  assert.equal(r.free(), 1);
  assert.equal(r.used(), 200);
  r.allocate(released);
  assert.equal(r.free(), 0);
  assert.equal(r.used(), 201);
});

test('TestForEach', () => {
  const cases = [[], [10000], [10000, 10200], [10000, 10099, 10200]];
  for (const tc of cases) {
    const r = new PortAllocator({ range: '10000-10200' });
    for (const p of tc) {
      r.allocate(p);
      assert.ok(r.has(p));
    }
    const calls: number[] = [];
    r.forEach((p) => calls.push(p));
    assert.deepEqual(calls, tc);
  }
});

const offsetCases: { name: string; base: number; size: number; want: number }[] = [
  { name: 'default node port range', base: 30000, size: 2768, want: 86 },
  { name: 'very small node port range', base: 30000, size: 10, want: 0 },
  { name: 'small node port range (lower boundary)', base: 30000, size: 16, want: 0 },
  { name: 'small node port range', base: 30000, size: 128, want: 16 },
  { name: 'medium node port range', base: 30000, size: 2048, want: 64 },
  { name: 'large node port range (upper boundary)', base: 30000, size: 4096, want: 128 },
  { name: 'large node port range', base: 30000, size: 8192, want: 128 },
];

for (const tc of offsetCases) {
  test(`Test_calculateRangeOffset/${tc.name}`, () => assert.equal(calculateRangeOffset({ base: tc.base, size: tc.size }), tc.want));
}

test('the default range is 30000-32767 and its errors read as upstream', () => {
  const r = new PortAllocator();
  assert.deepEqual(r.portRange, parsePortRange('30000-32767'));
  assert.equal(r.offset, 86);
  assert.throws(() => r.allocate(29999), { message: 'provided port is not in the valid range. The range of valid ports is 30000-32767' });
  r.allocate(30080);
  assert.throws(() => r.allocate(30080), { message: 'provided port is already allocated' });
  assert.throws(() => parsePortRange('32767-30000'), { message: 'invalid port range: 32767-30000' });
});

test('automatic allocation takes the dynamic band (30086-32767) first, then the static band', () => {
  const r = new PortAllocator({ range: '30000-30199', random: () => 0 });
  const offset = r.offset;
  assert.equal(offset, 16);
  const first = Array.from({ length: 200 - offset }, () => r.allocateNext());
  assert.ok(first.every((p) => p >= 30000 + offset), 'dynamic band used first');
  const rest = Array.from({ length: offset }, () => r.allocateNext());
  assert.ok(rest.every((p) => p < 30000 + offset), 'static band used last');
  assert.throws(() => r.allocateNext(), { message: 'range is full' });
});

test('with the default range and random picks, 2000 automatic allocations never touch the static band', () => {
  const r = new PortAllocator();
  for (let i = 0; i < 2000; i++) assert.ok(r.allocateNext() >= 30086);
});

test('TestNodePortMetrics: 3000 allocations fill exactly 2768 ports', () => {
  const r = new PortAllocator();
  let ok = 0;
  let full = 0;
  for (let i = 0; i < 3000; i++) {
    try {
      r.allocateNext();
      ok++;
    } catch (e) {
      assert.ok(e instanceof RangeFullError);
      full++;
    }
  }
  assert.equal(ok, 2768);
  assert.equal(full, 232);
  assert.equal(r.free(), 0);
});
