import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ApiError, apiErrors, isAlreadyExists, isGone, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { WatchEvent } from './client.js';
import { HttpClient } from './http-client.js';
import { createInformer } from './informer.js';
import { FakeClock } from './clock.js';
import { waitUntil } from './_fake-client.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A node:http server on 127.0.0.1 that records requests and answers with `handler`; closed after the test. */
async function fakeServer(t: TestContext, handler: Handler): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

function json(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const okPod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } };

void describe('HttpClient requests', () => {
  void test('paths, methods, query strings, content types and headers', async (t) => {
    const srv = await fakeServer(t, (_req, res) => json(res, 200, okPod));
    const c = new HttpClient({ server: srv.url, token: 'abc.def', userAgent: 'kubemix-test/1' });
    t.after(() => c.close());
    await c.get(resources.pods, 'p', { namespace: 'ns' });
    await c.get(resources.pods, 'p', { namespace: 'ns', subresource: 'status' });
    await c.get(resources.nodes, 'n1');
    await c.get(resources.namespaces, 'kube-system');
    await c.list(resources.deployments, {
      namespace: 'ns',
      labelSelector: 'app=web,tier in (a,b)',
      fieldSelector: 'metadata.name!=x',
      limit: 5,
      continue: 'tok',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
    });
    await c.list(resources.deployments);
    await c.create(resources.pods, okPod, { dryRun: true, fieldManager: 'mgr', fieldValidation: 'Strict' });
    await c.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' } });
    await c.update(resources.nodes, { metadata: { name: 'n1', resourceVersion: '3' } }, { subresource: 'status' });
    await c.patch(resources.pods, 'p', 'json', [{ op: 'add', path: '/metadata/labels/a', value: 'b' }], { namespace: 'ns' });
    await c.patch(resources.pods, 'p', 'merge', { metadata: { labels: { a: 'b' } } }, { namespace: 'ns' });
    await c.patch(resources.pods, 'p', 'strategic', { metadata: { labels: { a: 'b' } } }, { namespace: 'ns', subresource: 'status' });
    await c.patch(resources.deployments, 'd', 'apply', 'apiVersion: apps/v1\nkind: Deployment\n', {
      namespace: 'ns',
      fieldManager: 'kubectl',
      force: true,
    });
    await c.delete(resources.pods, 'p', { namespace: 'ns', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: true });
    await c.delete(resources.nodes, 'n1', { preconditions: { uid: 'u1' } });
    await c.deleteCollection(resources.pods, { namespace: 'ns', labelSelector: 'app=web' });
    await c.createSubresource(resources.pods, 'p', 'binding', { target: { kind: 'Node', name: 'n1' } }, { namespace: 'ns' });
    await c.get(resources.customresourcedefinitions, 'widgets.example.com');
    await c.get(resources.clusterrolebindings, 'system:node-proxier');
    await c.get(resources.configmaps, 'a b/c?', { namespace: 'ns' });

    assert.deepEqual(
      srv.seen.map((s) => `${s.method} ${s.url}`),
      [
        'GET /api/v1/namespaces/ns/pods/p',
        'GET /api/v1/namespaces/ns/pods/p/status',
        'GET /api/v1/nodes/n1',
        'GET /api/v1/namespaces/kube-system',
        'GET /apis/apps/v1/namespaces/ns/deployments?continue=tok&fieldSelector=metadata.name%21%3Dx&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&limit=5&resourceVersion=10&resourceVersionMatch=NotOlderThan',
        'GET /apis/apps/v1/deployments',
        'POST /api/v1/namespaces/ns/pods?dryRun=All&fieldManager=mgr&fieldValidation=Strict',
        'POST /api/v1/namespaces/default/pods',
        'PUT /api/v1/nodes/n1/status',
        'PATCH /api/v1/namespaces/ns/pods/p',
        'PATCH /api/v1/namespaces/ns/pods/p',
        'PATCH /api/v1/namespaces/ns/pods/p/status',
        'PATCH /apis/apps/v1/namespaces/ns/deployments/d?fieldManager=kubectl&force=true',
        'DELETE /api/v1/namespaces/ns/pods/p',
        'DELETE /api/v1/nodes/n1',
        'DELETE /api/v1/namespaces/ns/pods?labelSelector=app%3Dweb',
        'POST /api/v1/namespaces/ns/pods/p/binding',
        'GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
        'GET /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:node-proxier',
        'GET /api/v1/namespaces/ns/configmaps/a%20b%2Fc%3F',
      ],
    );
    const contentTypes = srv.seen.map((s) => s.headers['content-type'] ?? '-');
    assert.deepEqual(contentTypes, [
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
      'application/json',
      'application/json',
      'application/json',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
      'application/json',
      'application/json',
      'application/json',
      'application/json',
      '-',
      '-',
      '-',
    ]);
    for (const s of srv.seen) {
      assert.equal(s.headers.authorization, 'Bearer abc.def');
      assert.equal(s.headers['user-agent'], 'kubemix-test/1');
      assert.equal(s.headers.accept, 'application/json');
    }
    const bodies = srv.seen.map((s) => s.body);
    assert.deepEqual(JSON.parse(bodies[6] ?? ''), okPod);
    assert.equal(bodies[9], '[{"op":"add","path":"/metadata/labels/a","value":"b"}]');
    assert.equal(bodies[12], 'apiVersion: apps/v1\nkind: Deployment\n');
    assert.deepEqual(JSON.parse(bodies[13] ?? ''), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
    assert.deepEqual(JSON.parse(bodies[14] ?? ''), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'u1' } });
    assert.deepEqual(JSON.parse(bodies[16] ?? ''), { target: { kind: 'Node', name: 'n1' } });
  });

  void test('a server URL with a path prefix keeps the prefix', async (t) => {
    const srv = await fakeServer(t, (_req, res) => json(res, 200, okPod));
    const c = new HttpClient({ server: `${srv.url}/k8s/clusters/c1/` });
    t.after(() => c.close());
    await c.get(resources.pods, 'p', { namespace: 'ns' });
    assert.equal(srv.seen[0]?.url, '/k8s/clusters/c1/api/v1/namespaces/ns/pods/p');
  });

  void test('a Status body becomes an ApiError with the server code, reason, message and details', async (t) => {
    const srv = await fakeServer(t, (req, res) => {
      if (req.method === 'POST') json(res, 409, apiErrors.alreadyExists({ group: '', resource: 'pods' }, 'p').toStatus());
      else if (req.method === 'PUT') json(res, 409, apiErrors.modified({ group: 'apps', resource: 'deployments' }, 'd').toStatus());
      else json(res, 404, apiErrors.notFound({ group: '', resource: 'pods' }, 'p').toStatus());
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const notFound = await c.get(resources.pods, 'p', { namespace: 'ns' }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(notFound instanceof ApiError);
    assert.equal(isNotFound(notFound), true);
    assert.equal(notFound.code, 404);
    assert.equal(notFound.message, 'pods "p" not found');
    assert.deepEqual(notFound.details, { name: 'p', kind: 'pods' });
    await assert.rejects(c.create(resources.pods, okPod), (e: unknown) => isAlreadyExists(e) && (e as Error).message === 'pods "p" already exists');
    await assert.rejects(
      c.update(resources.deployments, { metadata: { name: 'd', namespace: 'ns' } }),
      (e: unknown) =>
        e instanceof ApiError &&
        e.reason === 'Conflict' &&
        e.message ===
          'Operation cannot be fulfilled on deployments.apps "d": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  const generic: { name: string; code: number; method: 'GET' | 'POST'; contentType: string; body: string; reason: string; message: string }[] = [
    {
      name: '404 with a text body',
      code: 404,
      method: 'GET',
      contentType: 'text/plain; charset=utf-8',
      body: '404 page not found\n',
      reason: 'NotFound',
      message: 'the server could not find the requested resource (get pods p)',
    },
    {
      name: '409 to a POST is AlreadyExists',
      code: 409,
      method: 'POST',
      contentType: 'text/plain',
      body: 'conflict',
      reason: 'AlreadyExists',
      message: 'the server reported a conflict (post pods p)',
    },
    {
      name: '500 quotes the server text',
      code: 500,
      method: 'GET',
      contentType: 'text/plain',
      body: 'oops',
      reason: 'InternalError',
      message: 'an error on the server ("oops") has prevented the request from succeeding (get pods p)',
    },
    {
      name: '403 keeps the server message',
      code: 403,
      method: 'GET',
      contentType: 'text/plain',
      body: 'forbidden: User "x" cannot get pods',
      reason: 'Forbidden',
      message: 'forbidden: User "x" cannot get pods (get pods p)',
    },
    {
      name: '401 asks for credentials',
      code: 401,
      method: 'GET',
      contentType: 'application/json',
      body: '{"not":"a status"}',
      reason: 'Unauthorized',
      message: 'the server has asked for the client to provide credentials (get pods p)',
    },
    {
      name: 'an unknown 4xx code',
      code: 418,
      method: 'GET',
      contentType: 'text/html',
      body: '<html></html>',
      reason: '',
      message: 'the server responded with the status code 418 but did not return more information (get pods p)',
    },
  ];
  for (const tc of generic) {
    void test(`a response that is not a Status: ${tc.name}`, async (t) => {
      const srv = await fakeServer(t, (_req, res) => {
        res.writeHead(tc.code, { 'Content-Type': tc.contentType });
        res.end(tc.body);
      });
      const c = new HttpClient({ server: srv.url });
      t.after(() => c.close());
      const call = tc.method === 'POST' ? c.create(resources.pods, okPod) : c.get(resources.pods, 'p', { namespace: 'ns' });
      await assert.rejects(call, (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.code, tc.code);
        assert.equal(e.reason, tc.reason);
        assert.equal(e.message, tc.message);
        return true;
      });
    });
  }

  void test('a refused connection names the method and URL', async (t) => {
    const srv = await fakeServer(t, () => undefined);
    const url = srv.url;
    await new Promise<void>((resolve) => srv.server.close(() => resolve()));
    const c = new HttpClient({ server: url });
    t.after(() => c.close());
    await assert.rejects(c.get(resources.nodes, 'n1'), (e: unknown) => {
      assert.ok(!(e instanceof ApiError));
      assert.match((e as Error).message, new RegExp(`^Get "${url}/api/v1/nodes/n1": connect ECONNREFUSED`));
      return true;
    });
  });

  void test('429 with Retry-After is retried', async (t) => {
    let calls = 0;
    const srv = await fakeServer(t, (_req, res) => {
      if (calls++ < 2) {
        res.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' });
        res.end(JSON.stringify(apiErrors.tooManyRequests('slow down', 0).toStatus()));
      } else json(res, 200, okPod);
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    assert.deepEqual(await c.get(resources.pods, 'p', { namespace: 'ns' }), okPod);
    assert.equal(srv.seen.length, 3);
  });

  void test('a GET whose connection is reset is retried', async (t) => {
    let calls = 0;
    const srv = await fakeServer(t, (req, res) => {
      if (calls++ === 0) req.socket.destroy();
      else json(res, 200, okPod);
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    assert.deepEqual(await c.get(resources.pods, 'p', { namespace: 'ns' }), okPod);
    assert.equal(calls, 2);
  });

  void test('a POST whose connection is reset is not retried', async (t) => {
    const srv = await fakeServer(t, (req) => req.socket.destroy());
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    await assert.rejects(c.create(resources.pods, okPod), /^Error: Post "http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/ns\/pods": socket hang up$/);
    assert.equal(srv.seen.length, 1);
  });

  void test('timeoutMs aborts a request that gets no answer', async (t) => {
    const srv = await fakeServer(t, () => undefined);
    const c = new HttpClient({ server: srv.url, timeoutMs: 50 });
    t.after(() => c.close());
    await assert.rejects(c.get(resources.nodes, 'n1'), /Get ".*\/api\/v1\/nodes\/n1": context deadline exceeded/);
  });

  void test('qps and burst space requests out', async (t) => {
    const srv = await fakeServer(t, (_req, res) => json(res, 200, okPod));
    const c = new HttpClient({ server: srv.url, qps: 20, burst: 1 });
    t.after(() => c.close());
    const started = Date.now();
    await Promise.all([0, 1, 2].map(() => c.get(resources.nodes, 'n1')));
    assert.ok(Date.now() - started >= 90, 'three requests at 20 qps with burst 1 take at least 100 ms');
  });
});

async function collect<T>(it: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  for await (const ev of it) out.push(ev);
  return out;
}

void describe('HttpClient watch', () => {
  void test('parses newline-delimited events split anywhere, including inside a line and a UTF-8 character', async (t) => {
    const events = [
      { type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'a', resourceVersion: '6', annotations: { note: 'naïve ☃' } } } },
      { type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: 'a', resourceVersion: '7' } } },
      { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '9' } } },
      { type: 'DELETED', object: { kind: 'Pod', metadata: { name: 'a', resourceVersion: '10' } } },
    ];
    const wire = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    const snowman = wire.indexOf(Buffer.from('☃', 'utf8'));
    const cuts = [5, snowman + 1, wire.indexOf(0x0a) + 1, wire.length - 3];
    const srv = await fakeServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      let at = 0;
      const pieces = [...cuts, wire.length].map((end) => {
        const p = wire.subarray(at, end);
        at = end;
        return p;
      });
      const send = (i: number): void => {
        const piece = pieces[i];
        if (piece === undefined) {
          res.end();
          return;
        }
        res.write(piece);
        setTimeout(() => send(i + 1), 5);
      };
      send(0);
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const w = c.watch<Pod>(resources.pods, { namespace: 'ns', resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 30 });
    const got = await collect(w);
    assert.deepEqual(got, events);
    assert.equal(srv.seen[0]?.url, '/api/v1/namespaces/ns/pods?allowWatchBookmarks=true&resourceVersion=5&timeoutSeconds=30&watch=true');
  });

  void test('close() ends the iteration and the request', async (t) => {
    let serverSawClose = false;
    const srv = await fakeServer(t, (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: okPod }) + '\n');
      req.socket.on('close', () => (serverSawClose = true));
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const w = c.watch<Pod>(resources.pods, { labelSelector: 'app=x' });
    const got: string[] = [];
    for await (const ev of w) {
      got.push(ev.type);
      w.close();
    }
    assert.deepEqual(got, ['ADDED']);
    assert.equal(srv.seen[0]?.url, '/api/v1/pods?labelSelector=app%3Dx&watch=true');
    await waitUntil(() => serverSawClose, 'the server to see the connection close');
  });

  void test('close() before any event ends a waiting iteration', async (t) => {
    const srv = await fakeServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const w = c.watch<Pod>(resources.nodes);
    const done = collect(w);
    await waitUntil(() => srv.seen.length === 1, 'the request');
    w.close();
    assert.deepEqual(await done, []);
  });

  void test('close() while the server has not answered yet aborts the request', async (t) => {
    let serverSawClose = false;
    const srv = await fakeServer(t, (req) => {
      req.socket.on('close', () => (serverSawClose = true));
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const w = c.watch<Pod>(resources.nodes);
    const done = collect(w);
    await waitUntil(() => srv.seen.length === 1, 'the request');
    w.close();
    assert.deepEqual(await done, []);
    await waitUntil(() => serverSawClose, 'the server to see the connection close');
  });

  void test('a 410 answer to the watch request throws a Gone ApiError from the iteration', async (t) => {
    const srv = await fakeServer(t, (_req, res) => json(res, 410, apiErrors.resourceExpired('too old resource version: 1 (5)').toStatus()));
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    await assert.rejects(collect(c.watch<Pod>(resources.pods, { resourceVersion: '1' })), (e: unknown) => {
      assert.equal(isGone(e), true);
      assert.equal((e as Error).message, 'too old resource version: 1 (5)');
      return true;
    });
  });

  void test('an ERROR event in the stream is delivered as an event', async (t) => {
    const status = apiErrors.resourceExpired('too old resource version: 1 (5)').toStatus();
    const srv = await fakeServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    assert.deepEqual(await collect(c.watch(resources.pods)), [{ type: 'ERROR', object: status }]);
  });

  void test('a connection dropped mid-stream ends the iteration after the complete events', async (t) => {
    const srv = await fakeServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: okPod }) + '\n{"type":"MOD');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const c = new HttpClient({ server: srv.url });
    t.after(() => c.close());
    const got = await collect(c.watch<Pod>(resources.pods));
    assert.deepEqual(
      got.map((e) => e.type),
      ['ADDED'],
    );
  });

  void test('an informer over HttpClient lists, watches and follows events', async (t) => {
    let watchRes: ServerResponse | undefined;
    const srv = await fakeServer(t, (req, res) => {
      if (req.url?.includes('watch=true') === true) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(JSON.stringify({ type: 'ADDED', object: { ...okPod, metadata: { name: 'q', namespace: 'ns', resourceVersion: '8' } } }) + '\n');
        watchRes = res;
        return;
      }
      json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'p', namespace: 'ns', resourceVersion: '7' } }] });
    });
    const c = new HttpClient({ server: srv.url });
    const inf = createInformer<Pod>(c, resources.pods, { namespace: 'ns', clock: new FakeClock() });
    t.after(() => {
      inf.stop();
      c.close();
    });
    inf.start();
    await inf.waitForSync();
    await waitUntil(() => inf.get('ns/q') !== undefined, 'the watched pod');
    assert.deepEqual(
      inf.list().map((p) => p.metadata?.name),
      ['p', 'q'],
    );
    assert.ok(watchRes !== undefined);
    // As client-go's reflector asks at first: answered by the watch cache, in one page.
    assert.match(srv.seen[0]?.url ?? '', /^\/api\/v1\/namespaces\/ns\/pods\?limit=500&resourceVersion=0$/);
    assert.match(srv.seen[1]?.url ?? '', /^\/api\/v1\/namespaces\/ns\/pods\?allowWatchBookmarks=true&resourceVersion=7&timeoutSeconds=\d+&watch=true$/);
  });
});
