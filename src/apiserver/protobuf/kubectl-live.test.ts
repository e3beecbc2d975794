/**
 * The real kubectl 1.32 against a recording HTTP server: what it sends as protobuf decodes to what the
 * same command prints with `--dry-run=client -o json`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKubectl } from '../../../test/tools/kubectl-tools.js';
import { isProtobufContentType } from './decode.js';
import { parseProtobufBody } from './body.js';

interface Recorded {
  method: string;
  url: string;
  contentType: string;
  object: Record<string, unknown>;
}

describe('kubectl 1.32 sends protobuf that decodes to its --dry-run=client -o json output', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  const recorded: Recorded[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const contentType = req.headers['content-type'] ?? '';
        if (body.length === 0 || !isProtobufContentType(contentType)) {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
          return;
        }
        const object = parseProtobufBody(body, { kind: '' });
        recorded.push({ method: req.method ?? '', url: req.url ?? '', contentType, object });
        // Answer as the API server would, in JSON (kubectl accepts it): the object, allowed for reviews.
        const reply = object['kind'] === 'SelfSubjectAccessReview' ? { ...object, status: { allowed: true } } : object;
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'kubemix-protobuf-'));
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- cluster: {server: "http://127.0.0.1:${port}"}`,
        '  name: rec',
        'contexts:',
        '- context: {cluster: rec, user: u, namespace: default}',
        '  name: rec',
        'current-context: rec',
        'users:',
        '- name: u',
        '  user: {token: t}',
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const cases: { name: string; args: string[]; request: string }[] = [
    { name: 'create configmap', args: ['create', 'configmap', 'cm', '--from-literal=a=b'], request: 'POST /api/v1/namespaces/default/configmaps' },
    { name: 'create deployment', args: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=80'], request: 'POST /apis/apps/v1/namespaces/default/deployments' },
    { name: 'create secret generic', args: ['create', 'secret', 'generic', 's', '--from-literal=pw=p@ss'], request: 'POST /api/v1/namespaces/default/secrets' },
    { name: 'create service clusterip', args: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'], request: 'POST /api/v1/namespaces/default/services' },
    { name: 'create cronjob', args: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *'], request: 'POST /apis/batch/v1/namespaces/default/cronjobs' },
    { name: 'create rolebinding', args: ['create', 'rolebinding', 'rb', '--clusterrole=view', '--serviceaccount=default:sa'], request: 'POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings' },
    { name: 'create pdb', args: ['create', 'pdb', 'pdb', '--selector=app=x', '--min-available=50%'], request: 'POST /apis/policy/v1/namespaces/default/poddisruptionbudgets' },
  ];
  for (const tc of cases) {
    test(tc.name, async () => {
      const dry = await runKubectl([...tc.args, '--dry-run=client', '-o', 'json'], { kubeconfig });
      assert.equal(dry.code, 0, dry.stderr);
      recorded.length = 0;
      const res = await runKubectl(tc.args, { kubeconfig });
      assert.equal(res.code, 0, res.stderr);
      const sent = recorded.find((r) => `${r.method} ${r.url.split('?')[0] ?? ''}` === tc.request);
      assert.ok(sent, `no protobuf ${tc.request} among ${JSON.stringify(recorded.map((r) => `${r.method} ${r.url}`))}`);
      assert.equal(sent.contentType, 'application/vnd.kubernetes.protobuf');
      assert.deepEqual(sent.object, JSON.parse(dry.stdout));
    });
  }

  test('auth can-i posts a SelfSubjectAccessReview', async () => {
    recorded.length = 0;
    const res = await runKubectl(['auth', 'can-i', 'list', 'pods'], { kubeconfig });
    assert.equal(res.stdout.trim(), 'yes', res.stderr);
    assert.deepEqual(recorded.map((r) => r.object), [
      {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } },
        status: { allowed: false },
      },
    ]);
  });
});
