/**
 * The real kubectl v1.32 and service account tokens on `kubemix up`: `kubectl create token` (the
 * TokenRequest API), the tokens authenticating as their service account with kube-apiserver's user, groups
 * and extras, RBAC refusing them what they are not granted, pod-bound tokens dying with their pod, legacy
 * token Secrets filled by the token controller, issuer discovery, and the signing key kept across a restart
 * on the same data dir.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { LocalCluster } from '../../src/local/local-cluster.js';
import { defaultCluster } from '../../src/cluster/index.js';
import { runKubectl, type RunResult } from '../tools/kubectl-tools.js';

const issuer = 'https://kubernetes.default.svc.cluster.local';

function claimsOf(jwt: string): Record<string, unknown> {
  const parts = jwt.trim().split('.');
  assert.equal(parts.length, 3, `not a JWT: ${jwt}`);
  return JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

function headerOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.trim().split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

const legacySecret = `apiVersion: v1
kind: Secret
metadata:
  name: default-token
  namespace: default
  annotations:
    kubernetes.io/service-account.name: default
type: kubernetes.io/service-account-token
`;

describe('kubectl and service account tokens', () => {
  let c: TestCluster;
  let restarted: LocalCluster | undefined;
  /** A kubeconfig with the cluster and no credentials: requests carry only the `--token` given. */
  let anonymousKubeconfig: string;

  const writeAnonymousKubeconfig = async (): Promise<void> => {
    const server = restarted?.url() ?? c.cluster.url();
    const ca = await readFile(join(c.dataDir, 'pki', 'ca.crt'));
    await writeFile(
      anonymousKubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: kubemix
  cluster:
    server: ${server}
    certificate-authority-data: ${ca.toString('base64')}
users:
- name: nobody
  user: {}
contexts:
- name: kubemix
  context: {cluster: kubemix, user: nobody, namespace: default}
current-context: kubemix
`,
    );
  };
  const withToken = (token: string, args: string[]): Promise<RunResult> => runKubectl([`--token=${token}`, ...args], { kubeconfig: anonymousKubeconfig });

  before(async () => {
    c = await startTestCluster();
    anonymousKubeconfig = join(c.dataDir, 'token-only.conf');
    await writeAnonymousKubeconfig();
    await c.eventually('the default service account', async () => ((await c.kubectlResult(['get', 'sa', 'default'])).code === 0 ? true : undefined));
  });
  after(async () => {
    await restarted?.stop();
    await c.stop();
  });

  test('kubectl create token prints a JWT with kube-apiserver\'s claims', async () => {
    const token = (await c.kubectl(['create', 'token', 'default'])).trim();
    const uid = (await c.kubectl(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const claims = claimsOf(token);
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims['aud'], [issuer]);
    assert.equal(claims['iss'], issuer);
    assert.equal(claims['sub'], 'system:serviceaccount:default:default');
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'default', uid } });
    assert.equal(claims['exp'], (claims['iat'] as number) + 3600);
    assert.equal(claims['nbf'], claims['iat']);
    assert.match(String(claims['jti']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const header = headerOf(token);
    assert.equal(header['alg'], 'RS256');
    assert.match(String(header['kid']), /^[A-Za-z0-9_-]{43}$/);
  });

  test('the token authenticates as the service account and RBAC refuses what it is not granted', async () => {
    const token = (await c.kubectl(['create', 'token', 'default'])).trim();
    const uid = (await c.kubectl(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const jti = String(claimsOf(token)['jti']);
    const whoami = await withToken(token, ['auth', 'whoami']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal(
      whoami.stdout,
      [
        'ATTRIBUTE                                           VALUE',
        'Username                                            system:serviceaccount:default:default',
        `UID                                                 ${uid}`,
        'Groups                                              [system:serviceaccounts system:serviceaccounts:default system:authenticated]',
        `Extra: authentication.kubernetes.io/credential-id   [JTI=${jti}]`,
        '',
      ].join('\n'),
    );
    const review = JSON.parse(await c.kubectl(['create', '-f', '-', '-o', 'json'], `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${token}\n`)) as { status: unknown };
    assert.deepEqual(review.status, {
      authenticated: true,
      user: {
        username: 'system:serviceaccount:default:default',
        uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
      },
      audiences: [issuer],
    });
    const pods = await withToken(token, ['get', 'pods']);
    assert.equal(pods.code, 1);
    assert.equal(pods.stderr, 'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"\n');
    const mint = await withToken(token, ['create', 'token', 'default']);
    assert.equal(
      mint.stderr,
      'error: failed to create token: serviceaccounts "default" is forbidden: User "system:serviceaccount:default:default" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default"\n',
    );
    // Issuer discovery is granted to every service account (system:service-account-issuer-discovery).
    const config = await withToken(token, ['get', '--raw', '/.well-known/openid-configuration']);
    assert.equal(config.code, 0, config.stderr);
    const doc = JSON.parse(config.stdout) as Record<string, unknown>;
    assert.equal(doc['issuer'], issuer);
    assert.deepEqual(doc['id_token_signing_alg_values_supported'], ['RS256']);
    const jwks = JSON.parse((await withToken(token, ['get', '--raw', '/openid/v1/jwks'])).stdout) as { keys: { kid: string; kty: string; alg: string; use: string }[] };
    assert.deepEqual(
      jwks.keys.map((k) => [k.kid, k.kty, k.alg, k.use]),
      [[headerOf(token)['kid'], 'RSA', 'RS256', 'sig']],
    );
  });

  test('an invalid token is Unauthorized; an audience other than the API server\'s does not authenticate', async () => {
    const bad = await withToken('not-a-token', ['get', 'pods']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'error: You must be logged in to the server (Unauthorized)\n');
    const token = (await c.kubectl(['create', 'token', 'default'])).trim();
    const [h, , s] = token.split('.');
    const forged = `${h ?? ''}.${Buffer.from(JSON.stringify({ ...claimsOf(token), sub: 'system:serviceaccount:kube-system:default' })).toString('base64url')}.${s ?? ''}`;
    assert.equal((await withToken(forged, ['auth', 'whoami'])).stderr, 'error: You must be logged in to the server (Unauthorized)\n');
    const vault = (await c.kubectl(['create', 'token', 'default', '--audience=vault'])).trim();
    assert.deepEqual(claimsOf(vault)['aud'], ['vault']);
    assert.equal((await withToken(vault, ['auth', 'whoami'])).stderr, 'error: You must be logged in to the server (Unauthorized)\n');
    // A TokenReview for that audience accepts it, for that audience only.
    const review = JSON.parse(
      await c.kubectl(['create', '-f', '-', '-o', 'json'], `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${vault}\n  audiences: [vault, other]\n`),
    ) as { status: { authenticated?: boolean; audiences?: string[] } };
    assert.equal(review.status.authenticated, true);
    assert.deepEqual(review.status.audiences, ['vault']);
  });

  test('kubectl create token refuses what kube-apiserver refuses', async () => {
    const short = await c.kubectlResult(['create', 'token', 'default', '--duration=5m']);
    assert.equal(short.code, 1);
    assert.equal(
      short.stderr,
      'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes\n',
    );
    const missing = await c.kubectlResult(['create', 'token', 'nobody']);
    assert.equal(missing.stderr, 'error: failed to create token: serviceaccounts "nobody" not found\n');
    const noPod = await c.kubectlResult(['create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=nope']);
    assert.equal(noPod.stderr, 'error: failed to create token: pods "nope" not found\n');
    const long = claimsOf(await c.kubectl(['create', 'token', 'default', '--duration=48h']));
    assert.equal(long['exp'], (long['iat'] as number) + 48 * 3600);
  });

  test('a pod-bound token names the pod and its node, and dies with the pod', async () => {
    await c.kubectl(['run', 'sa-e2e', '--image=nginx:1.27']);
    const pod = await c.eventually('the pod scheduled', async () => {
      const out = (await c.kubectl(['get', 'pod', 'sa-e2e', '-o', 'jsonpath={.metadata.uid} {.spec.nodeName}'])).trim().split(' ');
      return out[1] !== undefined && out[1] !== '' ? { uid: out[0] ?? '', node: out[1] } : undefined;
    });
    const token = (await c.kubectl(['create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=sa-e2e', `--bound-object-uid=${pod.uid}`])).trim();
    const k = claimsOf(token)['kubernetes.io'] as { pod?: { name: string; uid: string }; node?: { name: string; uid: string } };
    assert.deepEqual(k.pod, { name: 'sa-e2e', uid: pod.uid });
    assert.equal(k.node?.name, pod.node);
    const whoami = await withToken(token, ['auth', 'whoami', '-o', 'json']);
    const extra = (JSON.parse(whoami.stdout) as { status: { userInfo: { extra: Record<string, string[]> } } }).status.userInfo.extra;
    assert.deepEqual(extra['authentication.kubernetes.io/pod-name'], ['sa-e2e']);
    assert.deepEqual(extra['authentication.kubernetes.io/pod-uid'], [pod.uid]);
    assert.deepEqual(extra['authentication.kubernetes.io/node-name'], [pod.node]);
    const stale = await c.kubectlResult(['create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=sa-e2e', '--bound-object-uid=0000']);
    assert.equal(
      stale.stderr,
      'error: failed to create token: Operation cannot be fulfilled on Pod "sa-e2e": the UID in the bound object reference (0000) does not match the UID in record. The object might have been deleted and then recreated\n',
    );
    await c.kubectl(['delete', 'pod', 'sa-e2e', '--grace-period=0', '--force']);
    await c.eventually('the token rejected', async () => ((await withToken(token, ['auth', 'whoami'])).code === 1 ? true : undefined));
    assert.equal((await withToken(token, ['auth', 'whoami'])).stderr, 'error: You must be logged in to the server (Unauthorized)\n');
  });

  test('a legacy token Secret is filled by the token controller and its token authenticates until the Secret is deleted', async () => {
    await c.kubectl(['apply', '-f', '-'], legacySecret);
    const token = await c.eventually('the token in the Secret', async () => {
      const t = await c.kubectl(['get', 'secret', 'default-token', '-o', 'jsonpath={.data.token}']);
      return t === '' ? undefined : Buffer.from(t, 'base64').toString();
    });
    const uid = (await c.kubectl(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.deepEqual(claimsOf(token), {
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'default',
      'kubernetes.io/serviceaccount/secret.name': 'default-token',
      'kubernetes.io/serviceaccount/service-account.name': 'default',
      'kubernetes.io/serviceaccount/service-account.uid': uid,
      sub: 'system:serviceaccount:default:default',
    });
    const caCrt = await readFile(join(c.dataDir, 'pki', 'ca.crt'), 'utf8');
    assert.equal(Buffer.from(await c.kubectl(['get', 'secret', 'default-token', '-o', 'jsonpath={.data.ca\\.crt}']), 'base64').toString(), caCrt);
    const whoami = await withToken(token, ['auth', 'whoami']);
    assert.equal(
      whoami.stdout,
      [
        'ATTRIBUTE   VALUE',
        'Username    system:serviceaccount:default:default',
        `UID         ${uid}`,
        'Groups      [system:serviceaccounts system:serviceaccounts:default system:authenticated]',
        '',
      ].join('\n'),
    );
    const describe = await c.eventually('the last-used label', async () => {
      const out = await c.kubectl(['describe', 'secret', 'default-token']);
      return out.includes('kubernetes.io/legacy-token-last-used=') ? out : undefined;
    });
    const today = new Date().toISOString().slice(0, 10);
    const lines = describe.split('\n');
    assert.deepEqual(lines.slice(0, 8), [
      'Name:         default-token',
      'Namespace:    default',
      `Labels:       kubernetes.io/legacy-token-last-used=${today}`,
      'Annotations:  kubernetes.io/service-account.name: default',
      `              kubernetes.io/service-account.uid: ${uid}`,
      '',
      'Type:  kubernetes.io/service-account-token',
      '',
    ]);
    assert.deepEqual(lines.slice(8, 10), ['Data', '====']);
    assert.deepEqual(
      lines.slice(10, 13).sort(),
      [`ca.crt:     ${Buffer.byteLength(caCrt)} bytes`, 'namespace:  7 bytes', `token:      ${token}`],
    );
    await c.kubectl(['delete', 'secret', 'default-token']);
    await c.eventually('the legacy token rejected', async () => ((await withToken(token, ['auth', 'whoami'])).code === 1 ? true : undefined));
  });

  test('tokens survive a restart of kubemix up on the same data dir', async () => {
    const token = (await c.kubectl(['create', 'token', 'default', '--duration=1h'])).trim();
    const kid = headerOf(token)['kid'];
    await c.cluster.stop();
    restarted = new LocalCluster({ spec: defaultCluster(), dataDir: c.dataDir, port: 0, pullBandwidthBytesPerSecond: 5e9 });
    await restarted.start();
    await writeAnonymousKubeconfig();
    const whoami = await withToken(token, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal(whoami.stdout, 'system:serviceaccount:default:default');
    const again = (await runKubectl(['create', 'token', 'default'], { kubeconfig: c.kubeconfig })).stdout;
    assert.equal(headerOf(again)['kid'], kid);
  });
});
