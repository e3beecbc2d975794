/**
 * kubeadm's flow end to end with real processes on 127.0.0.1: `kubemix init`, `kubemix token`, `kubemix join`
 * (Linux with --count 2, Windows with a taint), refusals (wrong CA hash, unknown and expired tokens), the CNI
 * making nodes Ready, a stopped node going NotReady with its pods evicted per their tolerations, node
 * credentials confined to their own node, 401/403 without valid credentials, and `kubectl auth can-i` as
 * RBAC says.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'node:https';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { repoRoot, runKubectl } from '../tools/kubectl-tools.js';
import { discoverCluster, tlsBootstrap } from '../../src/bootstrap/join.js';
import { HttpClient } from '../../src/client/http-client.js';
import { resources } from '../../src/api/resources.js';
import { isApiError } from '../../src/api/errors.js';

const mainJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number>;
}

function kubemix(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [mainJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal !== null ? 128 : 1))));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A raw HTTPS request without verifying the server (as `curl -k`), for 401/403 checks. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ code: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kubeadm flow: init, token, join', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-bootstrap-'));
  const kubeconfig = join(dir, 'admin.conf');
  const procs: Running[] = [];
  let url = '';
  let hostPort = '';
  let token = '';
  let caHash = '';
  let windows: Running | undefined;

  const kubectl = async (args: string[], input?: string): Promise<string> => {
    const r = await runKubectl(args, { kubeconfig, ...(input !== undefined ? { input } : {}) });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    return r.stdout;
  };
  const kubectlResult = (args: string[]): ReturnType<typeof runKubectl> => runKubectl(args, { kubeconfig });
  const nodes = async (): Promise<Node[]> => (JSON.parse(await kubectl(['get', 'nodes', '-o', 'json'])) as { items: Node[] }).items;
  const ready = (n: Node | undefined): string | undefined => n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const start = (args: string[]): Running => {
    const r = kubemix(args);
    procs.push(r);
    return r;
  };
  const joinArgs = (name: string, extra: string[] = [], tok = token, hash = caHash): string[] => [
    'join', hostPort, '--token', tok, '--discovery-token-ca-cert-hash', hash, '--node-name', name,
    '--lease-renew-interval', '1s', '--node-status-update-frequency', '1s', ...extra,
  ];

  before(async () => {
    const init = start(['init', '--data-dir', dir, '--port', '0', '--node-monitor-grace-period', '6s', '--lease-renew-interval', '1s', '--node-status-update-frequency', '1s']);
    await waitFor('init output', () => (/discovery-token-ca-cert-hash sha256:[0-9a-f]{64} /.test(init.stdout()) ? true : undefined), 60_000).catch((e: unknown) => {
      throw new Error(`${String(e)}\nstdout:\n${init.stdout()}\nstderr:\n${init.stderr()}`);
    });
    url = /API server: (https:\/\/\S+)/.exec(init.stdout())?.[1] ?? '';
    hostPort = url.replace('https://', '');
    token = /--token ([a-z0-9]{6}\.[a-z0-9]{16})/.exec(init.stdout())?.[1] ?? '';
    caHash = /(sha256:[0-9a-f]{64})/.exec(init.stdout())?.[1] ?? '';
  });

  after(async () => {
    for (const p of procs.reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        const t = setTimeout(() => p.child.kill('SIGKILL'), 5000);
        await p.exited;
        clearTimeout(t);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('init prints the admin kubeconfig and a kubeadm-style join command; the control plane is tainted and NotReady, CoreDNS Pending', async () => {
    const out = procs[0]?.stdout() ?? '';
    assert.match(out, new RegExp(`export KUBECONFIG=${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(out, /\nkubemix join 127\.0\.0\.1:\d+ --token [a-z0-9]{6}\.[a-z0-9]{16} \\\n\t--discovery-token-ca-cert-hash sha256:[0-9a-f]{64} \n/);
    const cp = await waitFor('the control-plane node', async () => (await nodes()).find((n) => n.metadata?.name === 'control-plane' && n.metadata.labels?.['node-role.kubernetes.io/control-plane'] !== undefined));
    // The not-ready taint comes from TaintNodesByCondition while the network is missing.
    assert.deepEqual(cp.spec?.taints?.map((t) => `${t.key}:${t.effect}`).sort(), ['node-role.kubernetes.io/control-plane:NoSchedule', 'node.kubernetes.io/not-ready:NoSchedule']);
    assert.equal(cp.metadata?.labels?.['node.kubernetes.io/exclude-from-external-load-balancers'], '');
    assert.equal(ready(cp), 'False');
    const dns = (JSON.parse(await kubectl(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'json'])) as { items: Pod[] }).items;
    assert.ok(dns.length > 0);
    for (const p of dns) assert.equal(p.status?.phase, 'Pending');
    const cpPods = await waitFor('the control-plane mirror pods', async () => {
      const items = (JSON.parse(await kubectl(['get', 'pods', '-n', 'kube-system', '-l', 'tier=control-plane', '-o', 'json'])) as { items: Pod[] }).items;
      return items.length === 3 ? items : undefined;
    });
    assert.deepEqual(cpPods.map((p) => p.metadata?.name).sort(), ['kube-apiserver-control-plane', 'kube-controller-manager-control-plane', 'kube-scheduler-control-plane']);
    for (const p of cpPods) assert.ok(p.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined);
  });

  test('token create --print-join-command prints one line ending in a space; token list shows kubeadm columns', async () => {
    const r = kubemix(['token', 'create', '--print-join-command', '--kubeconfig', kubeconfig]);
    assert.equal(await r.exited, 0, r.stderr());
    assert.match(r.stdout(), new RegExp(`^kubemix join ${hostPort} --token [a-z0-9]{6}\\.[a-z0-9]{16} --discovery-token-ca-cert-hash ${caHash} \\n$`));
    const list = kubemix(['token', 'list', '--kubeconfig', kubeconfig]);
    assert.equal(await list.exited, 0, list.stderr());
    const lines = list.stdout().trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^TOKEN +TTL +EXPIRES +USAGES +DESCRIPTION +EXTRA GROUPS$/);
    assert.ok(lines.some((l) => l.startsWith(`${token} `) && /\s23h\s.*authentication,signing\s+<none>\s+system:bootstrappers:kubeadm:default-node-token$/.test(l)), list.stdout());
  });

  test('a join with a wrong CA hash is refused and registers nothing', async () => {
    const wrong = `sha256:${'0'.repeat(64)}`;
    const r = kubemix(joinArgs('bad-hash', [], token, wrong));
    assert.equal(await r.exited, 1);
    assert.match(r.stderr(), new RegExp(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${caHash}" are pinned`));
    assert.ok(!(await nodes()).some((n) => n.metadata?.name === 'bad-hash'));
    assert.equal(await kubectl(['get', 'csr', '-o', 'name']), '');
  });

  test('joins with an unknown or an expired token are refused and register nothing', async () => {
    const unknown = kubemix(joinArgs('bad-token', [], 'abcdef.0123456789abcdef'));
    assert.equal(await unknown.exited, 1);
    assert.match(unknown.stderr(), /token id "abcdef" is invalid for this cluster or it has expired/);
    const created = kubemix(['token', 'create', '--ttl', '1s', '--kubeconfig', kubeconfig]);
    assert.equal(await created.exited, 0, created.stderr());
    const short = created.stdout().trim();
    await new Promise((r) => setTimeout(r, 2500));
    const expired = kubemix(joinArgs('expired-token', [], short));
    assert.equal(await expired.exited, 1);
    assert.match(expired.stderr(), new RegExp(`token id "${short.slice(0, 6)}" is invalid for this cluster or it has expired|Unauthorized`));
    const names = (await nodes()).map((n) => n.metadata?.name);
    assert.ok(!names.includes('bad-token') && !names.includes('expired-token'), names.join(','));
    assert.equal(await kubectl(['get', 'csr', '-o', 'name']), '');
    // The token cleaner deletes the expired token's Secret.
    await waitFor('the expired token to be cleaned up', async () =>
      (await kubectlResult(['get', 'secret', '-n', 'kube-system', `bootstrap-token-${short.slice(0, 6)}`])).code !== 0 ? true : undefined,
    );
  });

  test('two joins: Linux with --count 2 and Windows with a taint, each node with its own approved certificate', async () => {
    const linux = start(joinArgs('lin', ['--count', '2']));
    windows = start(joinArgs('win', ['--os', 'windows', '--windows-build', '10.0.17763', '--register-with-taints', 'os=windows:NoSchedule']));
    for (const p of [linux, windows]) {
      await waitFor('join to finish', () => (p.stdout().includes('This node has joined the cluster') ? true : p.child.exitCode !== null ? Promise.reject(new Error(p.stderr())) : undefined), 60_000);
    }
    const all = await nodes();
    const byName = new Map(all.map((n) => [n.metadata?.name ?? '', n]));
    for (const n of ['lin-1', 'lin-2', 'win']) assert.ok(byName.has(n), `${n} registered`);
    const win = byName.get('win');
    assert.deepEqual(win?.spec?.taints?.filter((t) => !t.key.startsWith('node.kubernetes.io/')).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`), ['os=windows:NoSchedule']);
    assert.equal(win?.metadata?.labels?.['kubernetes.io/os'], 'windows');
    assert.equal(win?.metadata?.labels?.['node.kubernetes.io/windows-build'], '10.0.17763');
    const csrs = (JSON.parse(await kubectl(['get', 'csr', '-o', 'json'])) as { items: CertificateSigningRequest[] }).items;
    assert.equal(csrs.length, 3);
    for (const c of csrs) {
      assert.equal(c.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
      assert.match(c.spec.username ?? '', /^system:bootstrap:[a-z0-9]{6}$/);
      const approved = c.status?.conditions?.find((x) => x.type === 'Approved');
      assert.equal(approved?.reason, 'AutoApproved');
      assert.equal(approved?.message, 'Auto approving kubelet client certificate after SubjectAccessReview.');
      assert.ok((c.status?.certificate ?? '') !== '');
    }
  });

  test('applying the flannel manifest makes every node Ready', async () => {
    await kubectl(['apply', '-f', join(repoRoot(), 'examples', 'flannel.yaml')]);
    await kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
    const dns = await kubectl(['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=60s']);
    assert.match(dns, /condition met/);
  });

  test('without valid credentials: a bad token gets 401, anonymous requests 403 except cluster-info', async () => {
    const bad = await rawGet(`${url}/api/v1/namespaces/default/pods`, { Authorization: 'Bearer abcdef.0123456789abcdef' });
    assert.equal(bad.code, 401);
    assert.equal(bad.body['message'], 'Unauthorized');
    const anon = await rawGet(`${url}/api/v1/namespaces/default/pods`);
    assert.equal(anon.code, 403);
    assert.equal(anon.body['message'], 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"');
    const ns = await rawGet(`${url}/api/v1/namespaces`);
    assert.deepEqual(ns.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      reason: 'Forbidden',
      details: { kind: 'namespaces' },
      code: 403,
    });
    const info = await rawGet(`${url}/api/v1/namespaces/kube-public/configmaps/cluster-info`);
    assert.equal(info.code, 200);
  });

  test("a node's credentials cannot modify another node or read unrelated secrets (403)", async () => {
    const cluster = await discoverCluster({ server: url, token, caCertHashes: [caHash] });
    const creds = await tlsBootstrap({ cluster, token, nodeName: 'spy' });
    const client = new HttpClient({ server: url, ca: cluster.caPem, cert: creds.certPem, key: creds.keyPem });
    await assert.rejects(client.patch(resources.nodes, 'lin-1', 'merge', { metadata: { labels: { owned: 'yes' } } }), (e: unknown) => {
      assert.ok(isApiError(e));
      assert.equal(e.code, 403);
      assert.equal(e.message, 'nodes "lin-1" is forbidden: node "spy" is not allowed to modify node "lin-1"');
      return true;
    });
    await assert.rejects(client.get(resources.secrets, 'bootstrap-token-' + token.slice(0, 6), { namespace: 'kube-system' }), (e: unknown) => {
      assert.ok(isApiError(e));
      assert.equal(e.code, 403);
      assert.equal(
        e.message,
        `secrets "bootstrap-token-${token.slice(0, 6)}" is forbidden: User "system:node:spy" cannot get resource "secrets" in API group "" in the namespace "kube-system": no relationship found between node 'spy' and this object`,
      );
      return true;
    });
  });

  test('kubectl auth can-i agrees with the Roles and RoleBindings applied', async () => {
    await kubectl(['create', 'namespace', 'team']);
    await kubectl(['-n', 'team', 'create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    await kubectl(['-n', 'team', 'create', 'rolebinding', 'alice-reads', '--role=pod-reader', '--user=alice']);
    await kubectl(['create', 'clusterrolebinding', 'viewers', '--clusterrole=view', '--group=auditors']);
    const canI = async (...args: string[]): Promise<string> => (await kubectlResult(['auth', 'can-i', ...args])).stdout.trim();
    assert.equal(await canI('list', 'pods', '-n', 'team', '--as=alice'), 'yes');
    assert.equal(await canI('delete', 'pods', '-n', 'team', '--as=alice'), 'no');
    assert.equal(await canI('list', 'pods', '-n', 'default', '--as=alice'), 'no');
    assert.equal(await canI('list', 'deployments.apps', '-n', 'default', '--as=bob', '--as-group=auditors'), 'yes');
    assert.equal(await canI('get', 'secrets', '-n', 'default', '--as=bob', '--as-group=auditors'), 'no');
    // A user cannot grant what it does not hold (RBAC escalation prevention).
    await kubectl(['-n', 'team', 'create', 'rolebinding', 'alice-admin', '--clusterrole=admin', '--user=alice']);
    const escalate = await kubectlResult(['-n', 'team', 'create', 'role', 'node-reader', '--verb=list', '--resource=nodes', '--as=alice']);
    assert.notEqual(escalate.code, 0);
    assert.match(escalate.stderr, /roles\.rbac\.authorization\.k8s\.io "node-reader" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["list"\]\}/);
    await kubectl(['-n', 'team', 'create', 'role', 'pod-lister', '--verb=list', '--resource=pods', '--as=alice']);
    const denied = await kubectlResult(['get', 'pods', '-n', 'default', '--as=alice']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"/);
  });

  test("stopping a node's process makes it NotReady and evicts its pods per their tolerations", async () => {
    const pod = (name: string, seconds?: number): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': 'win' },
          tolerations: [
            { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
            ...(seconds !== undefined
              ? [
                  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds },
                  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds },
                ]
              : []),
          ],
          containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }],
        },
      });
    // The node lifecycle controller lifts the not-ready NoExecute taint of a node that became Ready on its
    // next monitor pass (5 s), as upstream: a pod that tolerates it for 2 s would be evicted before then.
    await waitFor('win to lose its NoExecute taints', async () => {
      const win = (await nodes()).find((n) => n.metadata?.name === 'win');
      return win !== undefined && !(win.spec?.taints ?? []).some((t) => t.effect === 'NoExecute') ? true : undefined;
    });
    await kubectl(['apply', '-f', '-'], pod('short', 2));
    await kubectl(['apply', '-f', '-'], pod('patient'));
    // A multi-GB Windows Server image pull on the joined node (simulated at 200 MB/s): slow on a loaded machine.
    await kubectl(['wait', '--for=condition=Ready', 'pod/short', 'pod/patient', '--timeout=180s']).catch(async (e: unknown) => {
      const pods = await kubectlResult(['describe', 'pods', 'short', 'patient']);
      const win = await kubectlResult(['describe', 'node', 'win']);
      throw new Error(`${String(e)}\n${pods.stdout}${pods.stderr}\n${win.stdout}${win.stderr}\nwin's join process:\n${windows?.stderr() ?? ''}`);
    });
    assert.ok(windows !== undefined);
    windows.child.kill('SIGTERM');
    assert.equal(await windows.exited, 0);
    await waitFor('win to be NotReady', async () => {
      const s = ready((await nodes()).find((n) => n.metadata?.name === 'win'));
      return s !== undefined && s !== 'True' ? s : undefined;
    });
    const get = async (name: string): Promise<Pod | undefined> => {
      const r = await kubectlResult(['get', 'pod', name, '-o', 'json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as Pod) : undefined;
    };
    await waitFor('the short-tolerating pod to be evicted', async () => {
      const p = await get('short');
      return p === undefined || p.metadata?.deletionTimestamp !== undefined ? true : undefined;
    });
    const patient = await get('patient');
    assert.equal(patient?.metadata?.deletionTimestamp, undefined, 'a pod with the default 300 s tolerations stays bound');
    assert.ok(patient?.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.tolerationSeconds === 300));
  });
});
