import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { describe, test, type TestContext } from 'node:test';
import { parse } from 'yaml';
import { createCa, issueCertificate } from '../bootstrap/pki.js';
import { resources } from '../api/resources.js';
import { defaultKubeconfigPath, httpClientFromKubeconfig, loadKubeconfig, writeKubeconfig } from './kubeconfig.js';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-kubeconfig-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const caPem = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';

void describe('kubeconfig', () => {
  void test('the default path is the first $KUBECONFIG entry, else ~/.kube/config', () => {
    assert.equal(defaultKubeconfigPath({ KUBECONFIG: '/a/one:/b/two', HOME: '/home/u' }), '/a/one');
    assert.equal(defaultKubeconfigPath({ KUBECONFIG: '', HOME: '/home/u' }), '/home/u/.kube/config');
    assert.equal(defaultKubeconfigPath({ HOME: '/home/u' }), '/home/u/.kube/config');
  });

  void test('write then load round-trips server, CA, client certificate, key and token', (t) => {
    const dir = tempDir(t);
    const path = join(dir, 'admin.conf');
    writeKubeconfig(path, {
      server: 'https://127.0.0.1:6443',
      caPem,
      clientCertPem: 'CERT',
      clientKeyPem: 'KEY',
      token: 'abcdef.0123456789abcdef',
      clusterName: 'kubemix',
      userName: 'kubernetes-admin',
      contextName: 'kubernetes-admin@kubemix',
    });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    assert.equal(doc['current-context'], 'kubernetes-admin@kubemix');
    assert.deepEqual(doc['clusters'], [
      { name: 'kubemix', cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server: 'https://127.0.0.1:6443' } },
    ]);
    const loaded = loadKubeconfig(path);
    assert.equal(loaded.server, 'https://127.0.0.1:6443');
    assert.equal(loaded.ca?.toString(), caPem);
    assert.equal(loaded.cert?.toString(), 'CERT');
    assert.equal(loaded.key?.toString(), 'KEY');
    assert.equal(loaded.token, 'abcdef.0123456789abcdef');
    assert.equal(loaded.contextName, 'kubernetes-admin@kubemix');
    assert.equal(loaded.clusterName, 'kubemix');
    assert.equal(loaded.userName, 'kubernetes-admin');
    assert.equal(loaded.insecureSkipTLSVerify, undefined);
  });

  void test('file paths are relative to the kubeconfig; tokenFile, insecure-skip-tls-verify, named contexts and namespaces', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'ca.crt'), caPem);
    writeFileSync(join(dir, 'client.crt'), 'CERT-FILE');
    writeFileSync(join(dir, 'client.key'), 'KEY-FILE');
    writeFileSync(join(dir, 'token'), 'tok-from-file\n');
    const path = join(dir, 'config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: a',
        'clusters:',
        '- name: ca',
        '  cluster: {server: "https://a:6443", certificate-authority: ca.crt}',
        '- name: cb',
        '  cluster: {server: "https://b:6443", insecure-skip-tls-verify: true}',
        'users:',
        '- name: ua',
        '  user: {client-certificate: client.crt, client-key: ' + join(dir, 'client.key') + '}',
        '- name: ub',
        '  user: {tokenFile: token}',
        'contexts:',
        '- name: a',
        '  context: {cluster: ca, user: ua}',
        '- name: b',
        '  context: {cluster: cb, user: ub, namespace: team-b}',
        '',
      ].join('\n'),
    );
    const a = loadKubeconfig(path);
    assert.equal(a.server, 'https://a:6443');
    assert.equal(a.ca?.toString(), caPem);
    assert.equal(a.cert?.toString(), 'CERT-FILE');
    assert.equal(a.key?.toString(), 'KEY-FILE');
    assert.equal(a.namespace, undefined);
    const b = loadKubeconfig(path, { context: 'b' });
    assert.equal(b.server, 'https://b:6443');
    assert.equal(b.insecureSkipTLSVerify, true);
    assert.equal(b.token, 'tok-from-file');
    assert.equal(b.namespace, 'team-b');
    assert.throws(() => loadKubeconfig(path, { context: 'nope' }), /context "nope" not found/);
    const eks = join(dir, 'eks');
    writeFileSync(
      eks,
      'current-context: e\nclusters: [{name: c, cluster: {server: "https://e"}}]\n' +
        'users: [{name: u, user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1}}}]\n' +
        'contexts: [{name: e, context: {cluster: c, user: u}}]\n',
    );
    assert.throws(() => loadKubeconfig(eks), /user "u" authenticates with an exec or auth-provider plugin, which kubemix does not support/);
  });

  void test('an HttpClient from a written kubeconfig authenticates with its client certificate over TLS', async (t) => {
    const ca = await createCa('kubemix-test-ca');
    const serving = await issueCertificate(ca, { commonName: 'kube-apiserver', ipAddresses: ['127.0.0.1'], usage: 'server' });
    const admin = await issueCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client' });
    const server: Server = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Node', apiVersion: 'v1', metadata: { name: peer.subject.CN } }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const dir = tempDir(t);
    const path = join(dir, 'admin.conf');
    writeKubeconfig(path, {
      server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      caPem: ca.certPem,
      clientCertPem: admin.certPem,
      clientKeyPem: admin.keyPem,
      clusterName: 'kubemix',
      userName: 'kubernetes-admin',
      contextName: 'kubernetes-admin@kubemix',
    });
    const client = httpClientFromKubeconfig(path);
    t.after(() => client.close());
    const node = await client.get(resources.nodes, 'n1');
    assert.equal(node.metadata?.name, 'kubernetes-admin', 'the server saw our client certificate');

    // Without the CA the server certificate is not trusted.
    const otherCa = await createCa('someone-else');
    const untrusting = httpClientFromKubeconfig(path, { ca: otherCa.certPem });
    t.after(() => untrusting.close());
    await assert.rejects(untrusting.get(resources.nodes, 'n1'), /Get "https:\/\/127\.0\.0\.1:\d+\/api\/v1\/nodes\/n1": /);
  });
});
