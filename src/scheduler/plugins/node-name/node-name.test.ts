import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { ErrReason, NodeName } from './node-name.js';

// node_name_test.go TestNodeName.
const cases = [
  { name: 'no host specified', podNode: '', want: undefined },
  { name: 'host matches', podNode: 'foo', want: undefined },
  { name: "host doesn't match", podNode: 'bar', want: ErrReason },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const ni = new NodeInfo();
    ni.setNode(makeNode('foo').obj());
    const w = makePod('p');
    if (tc.podNode !== '') w.node(tc.podNode);
    const s = new NodeName().filter(new CycleState(), w.obj(), ni);
    if (tc.want === undefined) assert.ok(s.isSuccess());
    else {
      assert.equal(s.code, Code.UnschedulableAndUnresolvable);
      assert.deepEqual(s.reasons(), ["node(s) didn't match the requested node name"]);
    }
  });
}
