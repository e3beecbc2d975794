import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makePod } from '../../_testing/wrappers.js';
import { PodInfo } from '../../framework/types.js';
import { PrioritySort } from './priority-sort.js';

const q = (prio: number | undefined, timestamp: number) => {
  const w = makePod(`p${prio ?? 'nil'}-${timestamp}`);
  if (prio !== undefined) w.priority(prio);
  return { podInfo: new PodInfo(w.obj()), timestamp };
};

// queuesort/priority_sort_test.go TestLess.
for (const tc of [
  { name: 'p1.priority less than p2.priority', p1: q(1, 0), p2: q(2, 0), want: false },
  { name: 'p1.priority greater than p2.priority', p1: q(2, 0), p2: q(1, 0), want: true },
  { name: 'equal priority. p1 is added to schedulingQ earlier than p2', p1: q(1, 1), p2: q(1, 2), want: true },
  { name: 'equal priority. p2 is added to schedulingQ earlier than p1', p1: q(1, 2), p2: q(1, 1), want: false },
  { name: 'a nil priority counts as 0', p1: q(undefined, 0), p2: q(-1, 0), want: true },
]) {
  void test(tc.name, () => {
    assert.equal(new PrioritySort().less(tc.p1, tc.p2), tc.want);
  });
}
