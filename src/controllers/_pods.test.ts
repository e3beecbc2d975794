import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { activePodsWithRanksLess, formatTime } from './_pods.js';

/** upstream controller_utils_test.go `TestSortingActivePodsWithRanks` (PodDeletionCost and LogarithmicScaleDown on). */
void test('SortingActivePodsWithRanks', async (t) => {
  const now = Date.parse('2025-06-15T12:00:00Z');
  const then1Month = Date.parse('2025-05-15T12:00:00Z');
  const then2Hours = now - 2 * 3_600_000;
  const then5Hours = now - 5 * 3_600_000;
  const then8Hours = now - 8 * 3_600_000;
  const zero = undefined;
  const pod = (name: string, nodeName: string, phase: string, ready: boolean, restarts: number, readySince: number | undefined, created: number | undefined, annotations?: Record<string, string>): Pod => {
    const p: Pod = { metadata: { name }, spec: { containers: [], nodeName }, status: { phase } };
    if (created !== undefined) (p.metadata as { creationTimestamp?: string }).creationTimestamp = formatTime(created);
    if (annotations !== undefined) (p.metadata as { annotations?: Record<string, string> }).annotations = annotations;
    if (ready) {
      (p.status as { conditions?: unknown[] }).conditions = [{ type: 'Ready', status: 'True', ...(readySince !== undefined ? { lastTransitionTime: formatTime(readySince) } : {}) }];
      (p.status as { containerStatuses?: unknown[] }).containerStatuses = [{ name: 'c', image: '', imageID: '', ready: true, restartCount: restarts }];
    }
    return p;
  };
  const unscheduledPod = pod('unscheduled', '', 'Pending', false, 0, zero, zero);
  const scheduledPendingPod = pod('pending', 'node', 'Pending', false, 0, zero, zero);
  const unknownPhasePod = pod('unknown-phase', 'node', 'Unknown', false, 0, zero, zero);
  const runningNotReadyPod = pod('not-ready', 'node', 'Running', false, 0, zero, zero);
  const runningReadyNoLastTransitionTimePod = pod('ready-no-last-transition-time', 'node', 'Running', true, 0, zero, zero);
  const runningReadyNow = pod('ready-now', 'node', 'Running', true, 0, now, now);
  const runningReadyThen = pod('ready-then', 'node', 'Running', true, 0, then1Month, then1Month);
  const runningReadyNowHighRestarts = pod('ready-high-restarts', 'node', 'Running', true, 9001, now, now);
  const runningReadyNowCreatedThen = pod('ready-now-created-then', 'node', 'Running', true, 0, now, then1Month);
  const lowPodDeletionCost = pod('low-deletion-cost', 'node', 'Running', true, 0, now, then1Month, { 'controller.kubernetes.io/pod-deletion-cost': '10' });
  const highPodDeletionCost = pod('high-deletion-cost', 'node', 'Running', true, 0, now, then1Month, { 'controller.kubernetes.io/pod-deletion-cost': '100' });
  const unscheduled5Hours = pod('unscheduled-5-hours', '', 'Pending', false, 0, then5Hours, then5Hours);
  const unscheduled8Hours = pod('unscheduled-10-hours', '', 'Pending', false, 0, then8Hours, then8Hours);
  const ready2Hours = pod('ready-2-hours', '', 'Running', true, 0, then2Hours, then1Month);
  const ready5Hours = pod('ready-5-hours', '', 'Running', true, 0, then5Hours, then1Month);
  const ready10Hours = pod('ready-10-hours', '', 'Running', true, 0, then8Hours, then1Month);

  const equalityTests: [Pod, Pod?][] = [
    [unscheduledPod],
    [scheduledPendingPod],
    [unknownPhasePod],
    [runningNotReadyPod],
    [runningReadyNowCreatedThen],
    [runningReadyNow],
    [runningReadyThen],
    [runningReadyNowHighRestarts],
    [runningReadyNowCreatedThen],
    [unscheduled5Hours, unscheduled8Hours],
    [ready5Hours, ready10Hours],
  ];
  for (const [i, [p1, p2 = p1]] of equalityTests.entries()) {
    await t.test(`Equality tests ${i}`, () => {
      assert.ok(!activePodsWithRanksLess(p1, 1, p2, 1, now) && !activePodsWithRanksLess(p2, 1, p1, 1, now), `expected pod ${p1.metadata?.name ?? ''} to be equivalent to ${p2.metadata?.name ?? ''}`);
    });
  }
  const inequalityTests: [Pod, number, Pod, number][] = [
    [unscheduledPod, 1, scheduledPendingPod, 2],
    [unscheduledPod, 2, scheduledPendingPod, 1],
    [scheduledPendingPod, 1, unknownPhasePod, 2],
    [unknownPhasePod, 1, runningNotReadyPod, 2],
    [runningNotReadyPod, 1, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNoLastTransitionTimePod, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNow, 1, runningReadyThen, 1],
    [runningReadyNow, 2, runningReadyThen, 1],
    [runningReadyNowHighRestarts, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNowHighRestarts, 1],
    [runningReadyNow, 1, runningReadyNowCreatedThen, 1],
    [runningReadyNowCreatedThen, 2, runningReadyNow, 1],
    [lowPodDeletionCost, 2, highPodDeletionCost, 1],
    [ready2Hours, 1, ready5Hours, 1],
  ];
  for (const [i, [lesser, lr, greater, gr]] of inequalityTests.entries()) {
    await t.test(`Inequality tests ${i}`, () => {
      assert.ok(activePodsWithRanksLess(lesser, lr, greater, gr, now), `expected pod ${lesser.metadata?.name ?? ''} with rank ${lr} to be less than ${greater.metadata?.name ?? ''} with rank ${gr}`);
      assert.ok(!activePodsWithRanksLess(greater, gr, lesser, lr, now), `expected pod ${greater.metadata?.name ?? ''} with rank ${gr} not to be less than ${lesser.metadata?.name ?? ''} with rank ${lr}`);
    });
  }
});
