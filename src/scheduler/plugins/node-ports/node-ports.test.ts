import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { ErrReason, NodePorts } from './node-ports.js';

/** newPod(host, "UDP/127.0.0.1/8080", ...) as in node_ports_test.go. */
function newPod(name: string, ...hostPorts: string[]): Pod {
  const w = makePod(name);
  for (const hp of hostPorts) {
    const [protocol = 'TCP', ip = '', port = '0'] = hp.split('/');
    w.hostPort(Number(port), protocol, ip);
  }
  return w.obj();
}

// node_ports_test.go TestNodePorts.
const cases: { name: string; pod: Pod; existing: Pod[]; fits: boolean }[] = [
  { name: 'nothing running', pod: newPod('m1'), existing: [], fits: true },
  { name: 'other port', pod: newPod('m1', 'UDP/127.0.0.1/8080'), existing: [newPod('m1', 'UDP/127.0.0.1/9090')], fits: true },
  { name: 'same udp port', pod: newPod('m1', 'UDP/127.0.0.1/8080'), existing: [newPod('m1', 'UDP/127.0.0.1/8080')], fits: false },
  { name: 'same tcp port', pod: newPod('m1', 'TCP/127.0.0.1/8080'), existing: [newPod('m1', 'TCP/127.0.0.1/8080')], fits: false },
  { name: 'different host ip', pod: newPod('m1', 'TCP/127.0.0.1/8080'), existing: [newPod('m1', 'TCP/127.0.0.2/8080')], fits: true },
  { name: 'different protocol', pod: newPod('m1', 'UDP/127.0.0.1/8080'), existing: [newPod('m1', 'TCP/127.0.0.1/8080')], fits: true },
  { name: 'second udp port conflict', pod: newPod('m1', 'UDP/127.0.0.1/8000', 'UDP/127.0.0.1/8080'), existing: [newPod('m1', 'UDP/127.0.0.1/8080')], fits: false },
  { name: 'first tcp port conflict', pod: newPod('m1', 'TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'), existing: [newPod('m1', 'TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8081')], fits: false },
  { name: 'first tcp port conflict due to 0.0.0.0 hostIP', pod: newPod('m1', 'TCP/0.0.0.0/8001'), existing: [newPod('m1', 'TCP/127.0.0.1/8001')], fits: false },
  { name: 'TCP hostPort conflict due to 0.0.0.0 hostIP', pod: newPod('m1', 'TCP/10.0.10.10/8001', 'TCP/0.0.0.0/8001'), existing: [newPod('m1', 'TCP/127.0.0.1/8001')], fits: false },
  { name: 'second tcp port conflict to 0.0.0.0 hostIP', pod: newPod('m1', 'TCP/127.0.0.1/8001'), existing: [newPod('m1', 'TCP/0.0.0.0/8001')], fits: false },
  { name: 'second different protocol', pod: newPod('m1', 'UDP/127.0.0.1/8001'), existing: [newPod('m1', 'TCP/0.0.0.0/8001')], fits: true },
  { name: 'UDP hostPort conflict due to 0.0.0.0 hostIP', pod: newPod('m1', 'UDP/127.0.0.1/8001'), existing: [newPod('m1', 'TCP/0.0.0.0/8001', 'UDP/0.0.0.0/8001')], fits: false },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const ni = new NodeInfo();
    ni.setNode(makeNode('n').obj());
    tc.existing.forEach((p, i) => ni.addPod({ ...p, metadata: { ...p.metadata, uid: `e${i}` } }));
    const pl = new NodePorts();
    const state = new CycleState();
    const pre = pl.preFilter(state, tc.pod);
    if (pre.status.isSkip()) {
      assert.ok(tc.fits, 'a pod without host ports is skipped and fits');
      return;
    }
    const s = pl.filter(state, tc.pod, ni);
    if (tc.fits) assert.ok(s.isSuccess(), s.toString());
    else {
      assert.equal(s.code, Code.Unschedulable);
      assert.deepEqual(s.reasons(), [ErrReason]);
    }
  });
}

void test('PreFilter skips a pod without host ports', () => {
  assert.ok(new NodePorts().preFilter(new CycleState(), newPod('m1')).status.isSkip());
});
