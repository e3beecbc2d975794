/**
 * The real kubectl v1.32 and the PersistentVolume binder on `kubemix up`: a claim binds to the smallest
 * fitting static volume, `kubectl get pv,pvc` shows both Bound with the CLAIM and VOLUME columns filled,
 * a claim nothing fits stays Pending with the controller's FailedBinding event, and deleting the claim
 * releases a Retain volume. Then storage object in-use protection and the default StorageClass: a claim
 * without a class gets the default one, claims and volumes carry their protection finalizers, a claim a
 * pod uses stays Terminating after `kubectl delete` (as does its Bound volume) and both go once the pod
 * is deleted.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

const pv = (name: string, size: string): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: ${name}
spec:
  capacity:
    storage: ${size}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath:
    path: /data/${name}
`;

const pvc = (name: string, size: string): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
  namespace: default
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${size}
`;

/** The row of `kubectl get` for a name, whitespace collapsed and the AGE column dropped. */
function row(table: string, name: string): string | undefined {
  const line = table.split('\n').find((l) => l.split(/\s+/)[0] === name);
  return line?.trim().split(/\s+/).slice(0, -1).join(' ');
}

describe('kubectl and the PersistentVolume binder', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c.stop();
  });

  test('a claim binds to the smallest fitting volume; one too big stays Pending; deleting the claim releases the volume', async () => {
    await c.kubectl(['apply', '-f', '-'], [pv('pv-small', '1Gi'), pv('pv-fit', '5Gi'), pv('pv-big', '10Gi')].join('---\n'));
    await c.kubectl(['apply', '-f', '-'], pvc('data', '3Gi'));
    await c.eventually('the claim bound', async () => {
      const phase = await c.kubectl(['get', 'pvc', 'data', '-o', 'jsonpath={.status.phase}']);
      return phase === 'Bound' ? phase : undefined;
    });
    const pvs = await c.kubectl(['get', 'pv']);
    assert.equal(row(pvs, 'pv-fit'), 'pv-fit 5Gi RWO Retain Bound default/data <unset>');
    assert.equal(row(pvs, 'pv-small'), 'pv-small 1Gi RWO Retain Available <unset>');
    const pvcs = await c.kubectl(['get', 'pvc']);
    assert.equal(row(pvcs, 'data'), 'data Bound pv-fit 5Gi RWO <unset>');

    await c.kubectl(['apply', '-f', '-'], pvc('huge', '50Gi'));
    const event = await c.eventually('the FailedBinding event', async () => {
      const out = await c.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=huge', '-o', 'jsonpath={.items[0].type} {.items[0].reason} {.items[0].source.component}: {.items[0].message}']);
      return out.trim() === '' ? undefined : out;
    });
    assert.equal(event, 'Normal FailedBinding persistentvolume-controller: no persistent volumes available for this claim and no storage class is set');
    assert.equal(await c.kubectl(['get', 'pvc', 'huge', '-o', 'jsonpath={.status.phase}']), 'Pending');

    await c.kubectl(['delete', 'pvc', 'data']);
    await c.eventually('the volume released', async () => {
      const phase = await c.kubectl(['get', 'pv', 'pv-fit', '-o', 'jsonpath={.status.phase}']);
      return phase === 'Released' ? phase : undefined;
    });
    assert.match(await c.kubectl(['get', 'pv', 'pv-fit', '-o', 'jsonpath={.status.lastPhaseTransitionTime}']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('the default class is assigned on create; a claim in use and its Bound volume stay Terminating until the pod is deleted', async () => {
    await c.kubectl(['apply', '-f', '-'], `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-standard
spec:
  storageClassName: standard
  capacity:
    storage: 2Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath:
    path: /data/pv-standard
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claimed
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`);
    assert.equal(await c.kubectl(['get', 'pvc', 'claimed', '-o', 'jsonpath={.spec.storageClassName} {.metadata.finalizers}']), 'standard ["kubernetes.io/pvc-protection"]');
    assert.equal(await c.kubectl(['get', 'pv', 'pv-standard', '-o', 'jsonpath={.metadata.finalizers}']), '["kubernetes.io/pv-protection"]');
    assert.equal(row(await c.kubectl(['get', 'pvc', 'claimed']), 'claimed'), 'claimed Pending standard <unset>');

    await c.kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: user
  namespace: default
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: app
    image: nginx:1.27
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: claimed
`);
    await c.eventually('the claim bound through the scheduler', async () => {
      const phase = await c.kubectl(['get', 'pvc', 'claimed', '-o', 'jsonpath={.status.phase}']);
      return phase === 'Bound' ? phase : undefined;
    });
    await c.eventually('the pod scheduled', async () => {
      const node = await c.kubectl(['get', 'pod', 'user', '-o', 'jsonpath={.spec.nodeName}']);
      return node === '' ? undefined : node;
    });

    // `kubectl delete` waits for the object to go unless told not to; the API server answers at once.
    assert.equal((await c.kubectl(['delete', 'pvc', 'claimed', '--wait=false'])).trim(), 'persistentvolumeclaim "claimed" deleted');
    assert.equal((await c.kubectl(['delete', 'pv', 'pv-standard', '--wait=false'])).trim(), 'persistentvolume "pv-standard" deleted');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(row(await c.kubectl(['get', 'pvc', 'claimed']), 'claimed'), 'claimed Terminating pv-standard 2Gi RWO standard <unset>');
    assert.equal(row(await c.kubectl(['get', 'pv', 'pv-standard']), 'pv-standard'), 'pv-standard 2Gi RWO Retain Terminating default/claimed standard <unset>');
    const described = await c.kubectl(['describe', 'pvc', 'claimed']);
    assert.match(described, /^Status:\s+Terminating \(lasts .+\)$/m);
    assert.match(described, /^Finalizers:\s+\[kubernetes\.io\/pvc-protection\]$/m);
    assert.match(described, /^Used By:\s+user$/m);
    assert.match(described, /^StorageClass:\s+standard$/m);

    await c.kubectl(['delete', 'pod', 'user']);
    await c.eventually('the claim gone', async () => {
      const r = await c.kubectlResult(['get', 'pvc', 'claimed']);
      return r.code !== 0 && r.stderr.includes('persistentvolumeclaims "claimed" not found') ? true : undefined;
    });
    await c.eventually('the volume released, then gone', async () => {
      const r = await c.kubectlResult(['get', 'pv', 'pv-standard']);
      return r.code !== 0 && r.stderr.includes('persistentvolumes "pv-standard" not found') ? true : undefined;
    });
  });
});
