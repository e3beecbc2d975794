/**
 * The API suite, run through both Client implementations against a real API server (SQLite, HTTPS):
 * the in-process client and the HTTP client must see the same semantics (h3's describeMatrix).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resources } from '../../src/api/resources.js';
import { ApiError, type Status } from '../../src/api/errors.js';
import type { Client, KubeObject, WatchEvent } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

type Obj = KubeObject & Record<string, unknown>;

async function rejectsWith(p: Promise<unknown>, code: number, message: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.message, message);
    assert.equal(e.code, code);
    return true;
  });
}

async function nextEvents<T>(it: AsyncIterator<WatchEvent<T>>, n: number): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done === true) break;
    out.push(r.value);
  }
  return out;
}

const matrix: ['in-process' | 'http'][] = [['in-process'], ['http']];

for (const [kind] of matrix) {
  describe(`API suite (${kind} client)`, () => {
    let srv: TestApiServer;
    let c: Client;
    let ns: string;
    let counter = 0;
    const fresh = (p: string): string => `${p}-${++counter}`;

    before(async () => {
      srv = await startTestApiServer();
      c = kind === 'in-process' ? srv.inProcess() : srv.http();
      ns = 'default';
      // No controller manager runs here: create the service account pods need, as its controller would.
      await c.create(resources.serviceaccounts, { metadata: { name: 'default', namespace: ns } });
    });
    after(async () => {
      await srv.stop();
    });

    test('creates and gets an object, stamping server metadata', async () => {
      const name = fresh('cm');
      const created = await c.create<Obj>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: 'b' } });
      assert.equal(created.metadata?.name, name);
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
      assert.match(created.metadata?.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const got = await c.get<Obj>(resources.configmaps, name, { namespace: ns });
      assert.deepEqual(got['data'], { a: 'b' });
      assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
    });

    test('a missing object is NotFound with the upstream message', async () => {
      await rejectsWith(c.get(resources.pods, 'nope', { namespace: ns }), 404, 'pods "nope" not found');
      await rejectsWith(c.get(resources.deployments, 'nope', { namespace: ns }), 404, 'deployments.apps "nope" not found');
    });

    test('creating twice is AlreadyExists', async () => {
      const name = fresh('dup');
      await c.create(resources.configmaps, { metadata: { name, namespace: ns } });
      await rejectsWith(c.create(resources.configmaps, { metadata: { name, namespace: ns } }), 409, `configmaps "${name}" already exists`);
    });

    test('an update with a stale resourceVersion is a Conflict', async () => {
      const name = fresh('conflict');
      const v1 = await c.create<Obj>(resources.configmaps, { metadata: { name, namespace: ns }, data: { x: '1' } });
      await c.update(resources.configmaps, { ...v1, data: { x: '2' } });
      await rejectsWith(
        c.update(resources.configmaps, { ...v1, data: { x: '3' } }),
        409,
        `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    });

    test('an unchanged update is a no-op that keeps the resourceVersion', async () => {
      const v1 = await c.create<Obj>(resources.configmaps, { metadata: { name: fresh('noop'), namespace: ns }, data: { x: '1' } });
      const v2 = await c.update<Obj>(resources.configmaps, v1);
      assert.equal(v2.metadata?.resourceVersion, v1.metadata?.resourceVersion);
    });

    test('generateName gives a name with a 5-character suffix', async () => {
      const created = await c.create<Obj>(resources.configmaps, { metadata: { generateName: 'gen-', namespace: ns } });
      assert.match(created.metadata?.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    test('a name the client gives is kept beside generateName, and its clash is a 409', async () => {
      const name = fresh('gen-given');
      const obj = { metadata: { name, generateName: `${name.slice(0, 4)}`, namespace: ns } };
      const created = await c.create<Obj>(resources.configmaps, obj);
      assert.equal(created.metadata?.name, name);
      await rejectsWith(c.create(resources.configmaps, obj), 409, `configmaps "${name}" already exists`);
    });

    test('dryRun create validates but stores nothing', async () => {
      const name = fresh('dry');
      const out = await c.create<Obj>(resources.configmaps, { metadata: { name, namespace: ns } }, { dryRun: true });
      assert.equal(out.metadata?.name, name);
      await rejectsWith(c.get(resources.configmaps, name, { namespace: ns }), 404, `configmaps "${name}" not found`);
    });

    test('dryRun create answers in the form storage reads back, as the real create does', async () => {
      // kube-apiserver's dry-run storage encodes and decodes the object: empty omitempty maps go, a struct
      // that is not a pointer (a Lease's spec) is written even when empty.
      const name = fresh('dry-form');
      const cm = { metadata: { name, namespace: ns }, data: {} };
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: ns } };
      const dryCm = await c.create<Obj>(resources.configmaps, cm, { dryRun: true });
      const dryLease = await c.create<Obj>(resources.leases, lease, { dryRun: true });
      assert.equal('data' in dryCm, false);
      assert.deepEqual(dryLease['spec'], {});
      const realLease = await c.create<Obj>(resources.leases, lease);
      assert.deepEqual(realLease['spec'], dryLease['spec']);
    });

    test('lists page with limit and continue, all at one resourceVersion', async () => {
      const space = fresh('page');
      await c.create(resources.namespaces, { metadata: { name: space } });
      for (let i = 0; i < 7; i++) await c.create(resources.configmaps, { metadata: { name: `p${i}`, namespace: space } });
      const names: string[] = [];
      let cont: string | undefined;
      let rv: string | undefined;
      let pages = 0;
      do {
        const page = await c.list<Obj>(resources.configmaps, { namespace: space, limit: 3, ...(cont !== undefined ? { continue: cont } : {}) });
        pages++;
        names.push(...page.items.map((i) => i.metadata?.name ?? ''));
        if (rv === undefined) rv = page.metadata.resourceVersion;
        else assert.equal(page.metadata.resourceVersion, rv);
        cont = page.metadata.continue;
      } while (cont !== undefined && cont !== '');
      assert.equal(pages, 3);
      assert.deepEqual(names, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    });

    test('label and field selectors filter lists', async () => {
      const space = fresh('sel');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await c.create(resources.configmaps, { metadata: { name: 'a', namespace: space, labels: { app: 'web', tier: 'front' } } });
      await c.create(resources.configmaps, { metadata: { name: 'b', namespace: space, labels: { app: 'db' } } });
      const byLabel = await c.list<Obj>(resources.configmaps, { namespace: space, labelSelector: 'app in (web,cache),tier' });
      assert.deepEqual(byLabel.items.map((i) => i.metadata?.name), ['a']);
      const notDb = await c.list<Obj>(resources.configmaps, { namespace: space, labelSelector: 'app!=db' });
      assert.deepEqual(notDb.items.map((i) => i.metadata?.name).filter((n) => n !== 'kube-root-ca.crt'), ['a']);
      const byField = await c.list<Obj>(resources.configmaps, { namespace: space, fieldSelector: 'metadata.name=b' });
      assert.deepEqual(byField.items.map((i) => i.metadata?.name), ['b']);
    });

    test('pods can be selected by spec.nodeName', async () => {
      const space = fresh('nodes');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await c.create(resources.serviceaccounts, { metadata: { name: 'default', namespace: space } });
      const pod = (name: string, nodeName?: string): Obj => ({
        metadata: { name, namespace: space },
        spec: { ...(nodeName !== undefined ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
      });
      await c.create(resources.pods, pod('on-n1', 'n1'));
      await c.create(resources.pods, pod('on-n2', 'n2'));
      await c.create(resources.pods, pod('pending'));
      const onN1 = await c.list<Obj>(resources.pods, { namespace: space, fieldSelector: 'spec.nodeName=n1' });
      assert.deepEqual(onN1.items.map((i) => i.metadata?.name), ['on-n1']);
      const unscheduled = await c.list<Obj>(resources.pods, { namespace: space, fieldSelector: 'spec.nodeName=' });
      assert.deepEqual(unscheduled.items.map((i) => i.metadata?.name), ['pending']);
    });

    test('a watch from a list resourceVersion sees later changes in order', async () => {
      const space = fresh('watch');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await c.create(resources.configmaps, { metadata: { name: 'before', namespace: space } });
      const list = await c.list<Obj>(resources.configmaps, { namespace: space });
      const w = c.watch<Obj>(resources.configmaps, { namespace: space, resourceVersion: list.metadata.resourceVersion ?? '' });
      try {
        const it = w[Symbol.asyncIterator]();
        const created = await c.create<Obj>(resources.configmaps, { metadata: { name: 'w1', namespace: space }, data: { v: '1' } });
        await c.update(resources.configmaps, { ...created, data: { v: '2' } });
        await c.delete(resources.configmaps, 'w1', { namespace: space });
        const events = await nextEvents(it, 3);
        assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
        assert.deepEqual(events.map((e) => e.object.metadata?.name), ['w1', 'w1', 'w1']);
        assert.deepEqual((events[1]?.object as Obj)['data'], { v: '2' });
        const rvs = events.map((e) => Number(e.object.metadata?.resourceVersion));
        assert.ok((rvs[0] ?? 0) < (rvs[1] ?? 0) && (rvs[1] ?? 0) < (rvs[2] ?? 0), `increasing resourceVersions ${rvs.join(',')}`);
      } finally {
        w.close();
      }
    });

    test('a watch without resourceVersion starts with the current objects as ADDED', async () => {
      const space = fresh('initial');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await c.create(resources.configmaps, { metadata: { name: 'x', namespace: space } });
      const w = c.watch<Obj>(resources.configmaps, { namespace: space, fieldSelector: 'metadata.name=x' });
      try {
        const [first] = await nextEvents(w[Symbol.asyncIterator](), 1);
        assert.equal(first?.type, 'ADDED');
        assert.equal(first?.object.metadata?.name, 'x');
      } finally {
        w.close();
      }
    });

    test('an object leaving a watched selector is reported as DELETED', async () => {
      const space = fresh('leave');
      await c.create(resources.namespaces, { metadata: { name: space } });
      const list = await c.list<Obj>(resources.configmaps, { namespace: space });
      const w = c.watch<Obj>(resources.configmaps, { namespace: space, labelSelector: 'keep=yes', resourceVersion: list.metadata.resourceVersion ?? '' });
      try {
        const it = w[Symbol.asyncIterator]();
        const o = await c.create<Obj>(resources.configmaps, { metadata: { name: 'l', namespace: space, labels: { keep: 'yes' } } });
        await c.update(resources.configmaps, { ...o, metadata: { ...o.metadata, labels: { keep: 'no' } } });
        const events = await nextEvents(it, 2);
        assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
      } finally {
        w.close();
      }
    });

    test('a watch from a compacted-away resourceVersion gets a 410 ERROR event', async () => {
      const w = c.watch<Obj | Status>(resources.configmaps, { namespace: ns, resourceVersion: '1' });
      try {
        const [ev] = await nextEvents(w[Symbol.asyncIterator](), 1);
        assert.equal(ev?.type, 'ERROR');
        const st = ev?.object as Status;
        assert.equal(st.code, 410);
        assert.equal(st.reason, 'Expired');
        assert.match(st.message ?? '', /^too old resource version: 1 \(\d+\)$/);
      } finally {
        w.close();
      }
    });

    test('the main resource ignores status; the status subresource changes status and metadata, never spec', async () => {
      const name = fresh('svc');
      const svc = await c.create<Obj>(resources.services, {
        metadata: { name, namespace: ns },
        spec: { ports: [{ port: 80 }] },
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      });
      assert.deepEqual(svc['status'], { loadBalancer: {} });
      const updated = await c.update<Obj>(resources.services, { ...svc, status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } } });
      assert.deepEqual(updated['status'], { loadBalancer: {} });
      // serviceStatusStrategy.PrepareForUpdate resets only spec: a label sent with the status is kept.
      const st = await c.update<Obj>(
        resources.services,
        { ...updated, metadata: { ...updated.metadata, labels: { kept: 'yes' } }, spec: { ports: [{ port: 81 }] }, status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } },
        { subresource: 'status' },
      );
      assert.deepEqual(st['status'], { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } });
      assert.deepEqual(st.metadata?.labels, { kept: 'yes' });
      assert.equal((st['spec'] as { ports: { port: number }[] }).ports[0]?.port, 80);
    });

    test('generation starts at 1 and grows with spec changes only', async () => {
      const name = fresh('deploy');
      const d = await c.create<Obj>(resources.deployments, {
        metadata: { name, namespace: ns },
        spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      assert.equal(d.metadata?.generation, 1);
      const labelled = await c.update<Obj>(resources.deployments, { ...d, metadata: { ...d.metadata, labels: { x: 'y' } } });
      assert.equal(labelled.metadata?.generation, 1);
      const scaled = await c.update<Obj>(resources.deployments, { ...labelled, spec: { ...(labelled['spec'] as object), replicas: 3 } });
      assert.equal(scaled.metadata?.generation, 2);
    });

    test('an unscheduled pod is deleted at once; a bound pod is deleted gracefully', async () => {
      const pod = (name: string, nodeName?: string): Obj => ({
        metadata: { name, namespace: ns },
        spec: { ...(nodeName !== undefined ? { nodeName } : {}), terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'nginx' }] },
      });
      const p1 = fresh('unbound');
      await c.create(resources.pods, pod(p1));
      await c.delete(resources.pods, p1, { namespace: ns });
      await rejectsWith(c.get(resources.pods, p1, { namespace: ns }), 404, `pods "${p1}" not found`);
      const p2 = fresh('bound');
      await c.create(resources.pods, pod(p2, 'node-1'));
      const terminating = (await c.delete<Obj>(resources.pods, p2, { namespace: ns })) as Obj;
      assert.equal(terminating.metadata?.deletionGracePeriodSeconds, 30);
      assert.ok(terminating.metadata?.deletionTimestamp !== undefined);
      const still = await c.get<Obj>(resources.pods, p2, { namespace: ns });
      assert.ok(still.metadata?.deletionTimestamp !== undefined);
      await c.delete(resources.pods, p2, { namespace: ns, gracePeriodSeconds: 0 });
      await rejectsWith(c.get(resources.pods, p2, { namespace: ns }), 404, `pods "${p2}" not found`);
    });

    test('finalizers hold a deleted object until they are removed', async () => {
      const name = fresh('fin');
      await c.create(resources.configmaps, { metadata: { name, namespace: ns, finalizers: ['example.com/hold'] } });
      await c.delete(resources.configmaps, name, { namespace: ns });
      const held = await c.get<Obj>(resources.configmaps, name, { namespace: ns });
      assert.ok(held.metadata?.deletionTimestamp !== undefined);
      await c.update(resources.configmaps, { ...held, metadata: { ...held.metadata, finalizers: [] } });
      await rejectsWith(c.get(resources.configmaps, name, { namespace: ns }), 404, `configmaps "${name}" not found`);
    });

    test('foreground deletion adds the foregroundDeletion finalizer', async () => {
      const name = fresh('fg');
      await c.create(resources.configmaps, { metadata: { name, namespace: ns } });
      await c.delete(resources.configmaps, name, { namespace: ns, propagationPolicy: 'Foreground' });
      const held = await c.get<Obj>(resources.configmaps, name, { namespace: ns });
      assert.deepEqual(held.metadata?.finalizers, ['foregroundDeletion']);
    });

    test('binding assigns a pod once and marks it scheduled', async () => {
      const name = fresh('bind');
      await c.create(resources.pods, { metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } };
      await c.createSubresource(resources.pods, name, 'binding', binding, { namespace: ns });
      const bound = await c.get<Obj>(resources.pods, name, { namespace: ns });
      assert.equal((bound['spec'] as { nodeName?: string }).nodeName, 'node-a');
      const cond = ((bound['status'] as { conditions?: { type: string; status: string }[] }).conditions ?? []).find((x) => x.type === 'PodScheduled');
      assert.equal(cond?.status, 'True');
      await rejectsWith(
        c.createSubresource(resources.pods, name, 'binding', { ...binding, target: { kind: 'Node', name: 'node-b' } }, { namespace: ns }),
        409,
        `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "node-a"`,
      );
    });

    test('deleting a namespace marks it Terminating until its finalizer is gone', async () => {
      const space = fresh('doomed');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await c.delete(resources.namespaces, space);
      const n = await c.get<Obj>(resources.namespaces, space);
      assert.equal((n['status'] as { phase?: string }).phase, 'Terminating');
      assert.ok(n.metadata?.deletionTimestamp !== undefined);
    });

    test('a pod without its service account is refused by admission', async () => {
      const space = fresh('nosa');
      await c.create(resources.namespaces, { metadata: { name: space } });
      await rejectsWith(
        c.create(resources.pods, { metadata: { name: 'p', namespace: space }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
        403,
        `pods "p" is forbidden: error looking up service account ${space}/default: serviceaccount "default" not found`,
      );
    });

    test('a PersistentVolumeClaim without accessModes and storage request is 422 with kube-apiserver 1.32\'s field errors', async () => {
      const name = fresh('pvc');
      await rejectsWith(
        c.create(resources.persistentvolumeclaims, { metadata: { name, namespace: ns }, spec: {} }),
        422,
        `PersistentVolumeClaim "${name}" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]`,
      );
    });

    test('an invalid HPA (v2 or v1) and an invalid Ingress are 422 with kube-apiserver 1.32\'s field errors', async () => {
      const name = fresh('hpa');
      const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
      await rejectsWith(
        c.create(resources.horizontalpodautoscalers, {
          metadata: { name, namespace: ns },
          spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 0, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
        }),
        422,
        `HorizontalPodAutoscaler.autoscaling "${name}" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to \`minReplicas\`]`,
      );
      // autoscaling/v1 is validated in the stored (v2) form, at the paths the internal type has upstream.
      await rejectsWith(
        c.create({ ...resources.horizontalpodautoscalers, version: 'v1' }, { metadata: { name, namespace: ns }, spec: { scaleTargetRef, maxReplicas: 3, targetCPUUtilizationPercentage: 0 } }),
        422,
        `HorizontalPodAutoscaler.autoscaling "${name}" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0`,
      );
      const ing = fresh('ing');
      const backend = { service: { name: 'web', port: { number: 80 } } };
      await rejectsWith(
        c.create(resources.ingresses, { metadata: { name: ing, namespace: ns }, spec: { rules: [{ host: '10.0.0.1', http: { paths: [{ path: 'app', pathType: 'Prefix', backend }] } }] } }),
        422,
        `Ingress.networking.k8s.io "${ing}" is invalid: [spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address, spec.rules[0].http.paths[0].path: Invalid value: "app": must be an absolute path]`,
      );
      const ok = await c.create<Obj>(resources.ingresses, { metadata: { name: ing, namespace: ns }, spec: { rules: [{ host: 'app.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] } });
      assert.equal(ok.metadata?.name, ing);
    });

    test('a ConfigMap over 1 MiB is invalid; any object over 1.5 MiB is too large to store', async () => {
      const name = fresh('big');
      await rejectsWith(
        c.create(resources.configmaps, { metadata: { name, namespace: ns }, data: { big: 'x'.repeat(1100 * 1024) } }),
        422,
        `ConfigMap "${name}" is invalid: []: Too long: may not be more than 1048576 bytes`,
      );
      const tpl = fresh('huge');
      await assert.rejects(
        c.create(resources.podtemplates, {
          metadata: { name: tpl, namespace: ns },
          template: { spec: { containers: [{ name: 'c', image: 'nginx', args: ['x'.repeat(1600 * 1024)] }] } },
        }),
        (e: unknown) => {
          assert.ok(e instanceof ApiError);
          assert.equal(e.code, 413);
          assert.equal(e.message, 'Request entity too large: etcdserver: request is too large');
          return true;
        },
      );
    });
  });
}

describe('events.k8s.io/v1 and core/v1 Events share one storage', () => {
  let srv: TestApiServer;
  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('an Event created through events.k8s.io/v1 reads back through v1 with the old field names', async () => {
    const c = srv.http();
    await c.create<Obj>(resources.eventsV1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'default' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Binding',
      reason: 'Scheduled',
      note: 'assigned somewhere',
      type: 'Normal',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p1' },
    });
    const core = await c.get<Obj>(resources.events, 'e1', { namespace: 'default' });
    assert.equal(core.apiVersion, 'v1');
    assert.equal(core['message'], 'assigned somewhere');
    assert.equal(core['reportingComponent'], 'example.com/ctl');
    assert.deepEqual(core['involvedObject'], { kind: 'Pod', namespace: 'default', name: 'p1' });
    const listed = await c.list<Obj>(resources.eventsV1, { namespace: 'default', fieldSelector: 'regarding.name=p1' });
    assert.deepEqual(listed.items.map((e) => [e.apiVersion, e['note']]), [['events.k8s.io/v1', 'assigned somewhere']]);
    const byCore = await c.list<Obj>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=p1' });
    assert.equal(byCore.items.length, 1);
  });
});

describe('unknown fields and fieldValidation', () => {
  let srv: TestApiServer;
  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('quantities: quantity fields are refused when malformed and stored canonical; other fields keep their text', async () => {
    const c = srv.http();
    await c.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
    const pod = (name: string, cpu: unknown): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', annotations: { sizeLimit: '1.0Gi' } },
      spec: { containers: [{ name: 'a', image: 'i', resources: { requests: { cpu } }, env: [{ name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1024Ki' } } }] }] },
    });
    await rejectsWith(
      c.create(resources.pods, pod('q1', 'lots')),
      400,
      "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    const created = (await c.create(resources.pods, pod('q2', 0.5))) as Obj & { spec: { containers: { resources: unknown; env: unknown }[] } };
    assert.deepEqual(created.spec.containers[0]?.resources, { requests: { cpu: '500m' } });
    assert.deepEqual(created.spec.containers[0]?.env, [{ name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }]);
    assert.deepEqual(created.metadata?.annotations, { sizeLimit: '1.0Gi' });
    const cm = await c.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'q3', namespace: 'default' }, data: { sizeLimit: '1.5Gi', other: 'lots' } });
    assert.deepEqual(cm['data'], { sizeLimit: '1.5Gi', other: 'lots' });
  });

  test('Strict refuses unknown fields with the decoder\'s message; Warn and Ignore drop them', async () => {
    const c = srv.http();
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u1', namespace: 'default' }, data: { a: 'b' }, extra: 1, metadata2: {} } as Obj;
    await rejectsWith(
      c.create(resources.configmaps, body, { fieldValidation: 'Strict' }),
      400,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra", unknown field "metadata2"',
    );
    const warned = await c.create<Obj>(resources.configmaps, body, { fieldValidation: 'Warn' });
    assert.equal(warned['extra'], undefined);
    const stored = await c.get<Obj>(resources.configmaps, 'u1', { namespace: 'default' });
    assert.equal(stored['extra'], undefined);
    assert.deepEqual(stored['data'], { a: 'b' });
  });
});

describe('custom resources follow their CRD schema', () => {
  let srv: TestApiServer;
  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('unknown fields are pruned, defaults applied, and invalid values refused with the field named', async () => {
    const c = srv.http();
    await c.create(resources.customresourcedefinitions, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    required: ['size'],
                    properties: {
                      size: { type: 'string', enum: ['small', 'large'] },
                      replicas: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    const gadgets = { group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true };
    let created: Obj | undefined;
    for (let i = 0; i < 50 && created === undefined; i++) {
      try {
        created = await c.create<Obj>(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: 'default' }, spec: { size: 'small', colour: 'red' } });
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.deepEqual(created?.['spec'], { size: 'small', replicas: 1 });
    await rejectsWith(
      c.create(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g2', namespace: 'default' }, spec: { size: 'huge', replicas: 9 } }),
      422,
      'Gadget.example.com "g2" is invalid: [spec.size: Unsupported value: "huge": supported values: "small", "large", spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5]',
    );
    await rejectsWith(
      c.create(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g3', namespace: 'default' }, spec: { replicas: 'two' } }),
      422,
      // kube-openapi's object validator checks the properties before the required list.
      'Gadget.example.com "g3" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", spec.size: Required value]',
    );
  });
});

describe('autoscaling/v1 and v2 HorizontalPodAutoscalers share one storage', () => {
  let srv: TestApiServer;
  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('a v1 CPU target reads back as a v2 Resource metric and the other way round', async () => {
    const c = srv.http();
    const v1 = { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true };
    await c.create(v1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    });
    const asV2 = await c.get<Obj>(resources.horizontalpodautoscalers, 'web', { namespace: 'default' });
    assert.equal(asV2.apiVersion, 'autoscaling/v2');
    assert.deepEqual((asV2['spec'] as { metrics?: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    const asV1 = await c.get<Obj>(v1, 'web', { namespace: 'default' });
    assert.equal(asV1.apiVersion, 'autoscaling/v1');
    assert.equal((asV1['spec'] as { targetCPUUtilizationPercentage?: number }).targetCPUUtilizationPercentage, 50);
  });
});
