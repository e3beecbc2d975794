/**
 * The node side of `kubeadm join` (cmd/kubeadm/app/discovery/token, kubelet's TLS bootstrap):
 * - discovery: read `kube-public/cluster-info` anonymously over TLS without verifying the server, check
 *   its JWS signature with the bootstrap token and pin the CA by the discovery hash;
 * - TLS bootstrap: with the bootstrap token, submit a CSR for `system:node:<name>` in `system:nodes`
 *   (signer `kubernetes.io/kube-apiserver-client-kubelet`) and wait until it is approved and signed.
 * Errors are `JoinError`s worded as kubeadm's.
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { HttpClient } from '../client/http-client.js';
import { resources } from '../api/resources.js';
import { caCertHash } from './pki.js';
import { detachedTokenIsValid } from './jws.js';
import { clusterInfoName, clusterInfoNamespace, jwsSignatureKeyPrefix, kubeconfigKey, parseClusterInfoKubeconfig } from './cluster-info.js';
import { parseToken, bootstrapTokenPattern } from './token.js';
import { createCsr } from './csr.js';

export class JoinError extends Error {}

const kubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

export interface DiscoveryOptions {
  /** `https://host:port` */
  server: string;
  token: string;
  caCertHashes: readonly string[];
}

export interface DiscoveredCluster {
  server: string;
  caPem: string;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `RetrieveValidatedConfigInfo`: the cluster's CA and server, trusted through the token and the pin. */
export async function discoverCluster(o: DiscoveryOptions): Promise<DiscoveredCluster> {
  const token = parseToken(o.token);
  if (token === undefined) throw new JoinError(`the bootstrap token "${o.token}" was not of the form "${bootstrapTokenPattern.source.replace('^', '\\A').replace('$', '\\z')}"`);
  if (o.caCertHashes.length === 0) {
    throw new JoinError('discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue');
  }
  const insecure = new HttpClient({ server: o.server, insecureSkipTLSVerify: true, timeoutMs: 10_000, userAgent: 'kubemix-join' });
  let cm: ConfigMap;
  try {
    cm = await insecure.get<ConfigMap>(resources.configmaps, clusterInfoName, { namespace: clusterInfoNamespace });
  } catch (e) {
    throw new JoinError(`failed to get config map: ${errorText(e)}`);
  }
  const kubeconfig = cm.data?.[kubeconfigKey];
  if (kubeconfig === undefined || kubeconfig === '') {
    throw new JoinError(`there is no ${kubeconfigKey} key in the ${clusterInfoName} ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`);
  }
  const jws = cm.data?.[`${jwsSignatureKeyPrefix}${token.id}`];
  if (jws === undefined || jws === '') {
    throw new JoinError(`token id "${token.id}" is invalid for this cluster or it has expired. Use "kubemix token create" on the control-plane node to create a new valid token`);
  }
  if (!detachedTokenIsValid(jws, kubeconfig, token.id, token.secret)) {
    throw new JoinError("failed to verify JWS signature of received cluster info object, can't trust this API Server");
  }
  const info = parseClusterInfoKubeconfig(parseYaml(kubeconfig));
  if (info === undefined) throw new JoinError("couldn't parse the kubeconfig file in the cluster-info ConfigMap");
  const hash = caCertHash(info.caPem);
  if (!o.caCertHashes.some((h) => h.toLowerCase() === hash)) {
    throw new JoinError(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hash}" are pinned`);
  }
  // Now that the CA is trusted, read cluster-info again over verified TLS and expect the same content.
  const secure = new HttpClient({ server: o.server, ca: info.caPem, timeoutMs: 10_000, userAgent: 'kubemix-join' });
  const again = await secure.get<ConfigMap>(resources.configmaps, clusterInfoName, { namespace: clusterInfoNamespace });
  if (again.data?.[kubeconfigKey] !== kubeconfig) {
    throw new JoinError('the second cluster-info request returned a different kubeconfig than the first one; this is unexpected');
  }
  return { server: o.server, caPem: info.caPem };
}

export interface TlsBootstrapOptions {
  cluster: DiscoveredCluster;
  token: string;
  nodeName: string;
  timeoutMs?: number;
}

/**
 * The kubelet's CSR name: `node-csr-` + a digest of the key and subject (`digestedName`). Upstream encodes
 * the digest in unpadded base64url; kubemix's name validation takes DNS subdomains only, so hex is used.
 */
function csrName(keyPem: string, nodeName: string): string {
  const digest = createHash('sha512').update(keyPem).update(`system:node:${nodeName}`).update('system:nodes').digest('hex');
  return `node-csr-${digest.slice(0, 43)}`;
}

/** Requests a node client certificate with the bootstrap token; resolves with the signed certificate and key. */
export async function tlsBootstrap(o: TlsBootstrapOptions): Promise<{ certPem: string; keyPem: string }> {
  const client = new HttpClient({ server: o.cluster.server, ca: o.cluster.caPem, token: o.token, timeoutMs: 10_000, userAgent: 'kubelet' });
  const { csrPem, keyPem } = await createCsr(`system:node:${o.nodeName}`, ['system:nodes']);
  const name = csrName(keyPem, o.nodeName);
  try {
    await client.create<CertificateSigningRequest>(resources.certificatesigningrequests, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: kubeletClientSigner, usages: ['digital signature', 'client auth'] },
    });
  } catch (e) {
    throw new JoinError(`cannot create certificate signing request: ${errorText(e)}`);
  }
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const csr = await client.get<CertificateSigningRequest>(resources.certificatesigningrequests, name);
    const conds = csr.status?.conditions ?? [];
    const denied = conds.find((c) => c.type === 'Denied');
    if (denied !== undefined) throw new JoinError(`certificate signing request ${name} is denied, reason: ${denied.reason ?? ''}, message: ${denied.message ?? ''}`);
    const failed = conds.find((c) => c.type === 'Failed');
    if (failed !== undefined) throw new JoinError(`certificate signing request ${name} failed, reason: ${failed.reason ?? ''}, message: ${failed.message ?? ''}`);
    const cert = csr.status?.certificate;
    if (cert !== undefined && cert !== '') return { certPem: Buffer.from(cert, 'base64').toString('utf8'), keyPem };
    if (Date.now() > deadline) throw new JoinError(`timed out waiting for the certificate signing request ${name} to be approved and signed`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
