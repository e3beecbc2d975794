import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makePod } from '../../_testing/wrappers.js';
import { Code } from '../../framework/status.js';
import { SchedulingGates } from './scheduling-gates.js';

// schedulinggates/scheduling_gates_test.go TestPreEnqueue.
void test('pod does not carry scheduling gates', () => {
  assert.ok(new SchedulingGates().preEnqueue(makePod('p').obj()).isSuccess());
});

void test('pod carries scheduling gates', () => {
  const s = new SchedulingGates().preEnqueue(makePod('p').schedulingGates('foo', 'bar').obj());
  assert.equal(s.code, Code.UnschedulableAndUnresolvable);
  assert.deepEqual(s.reasons(), ['waiting for scheduling gates: [foo bar]']);
});
