import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { shareTokenProjection, tokenVolumeSource } from './service-account-token.js';

const pod = (volumes: NonNullable<NonNullable<Pod['spec']>['volumes']>): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [], volumes } });

test('pods with the standard token volume end up holding one shared, frozen projection; anything else is left as it is', () => {
  const a = pod([{ name: 'data', emptyDir: {} }, { name: 'kube-api-access-x7k2q', projected: tokenVolumeSource() }]);
  const b = pod([{ name: 'kube-api-access-b9z4d', projected: tokenVolumeSource() }]);
  shareTokenProjection(a);
  shareTokenProjection(b);
  const shared = a.spec?.volumes?.[1]?.projected;
  assert.equal(b.spec?.volumes?.[0]?.projected, shared);
  assert.deepEqual(shared, tokenVolumeSource());
  assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared?.sources?.[1]?.configMap?.items));
  assert.deepEqual(a.spec?.volumes?.[0], { name: 'data', emptyDir: {} });

  const longer = tokenVolumeSource();
  const token = longer.sources?.[0]?.serviceAccountToken;
  if (token !== undefined) token.expirationSeconds = 7200;
  const other = pod([{ name: 'kube-api-access-aaaaa', projected: longer }, { name: 'mine', projected: tokenVolumeSource() }]);
  shareTokenProjection(other);
  assert.notEqual(other.spec?.volumes?.[0]?.projected, shared, 'another projection is not the standard one');
  assert.notEqual(other.spec?.volumes?.[1]?.projected, shared, 'only kube-api-access-* volumes are looked at');
  const notPod = { kind: 'PodTemplate', spec: { volumes: [{ name: 'kube-api-access-aaaaa', projected: tokenVolumeSource() }] } };
  shareTokenProjection(notPod);
  assert.notEqual(notPod.spec.volumes[0]?.projected, shared);
});
