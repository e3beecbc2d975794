/**
 * The cluster PKI, as kubeadm lays it out: a cluster CA, the API server's serving certificate, an admin
 * client certificate (group `system:masters`), generated with @peculiar/x509 on WebCrypto, and the service
 * account signing key pair (`sa.key`/`sa.pub`), all kept in `<dataDir>/pki/` with private keys readable by
 * the owner only.
 */
import { createHash, createPublicKey, generateKeyPair, webcrypto, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdir, readFile, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { x509 } from './_x509.js';

type CryptoKey = webcrypto.CryptoKey;

const ecAlg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** The service account token signing key (kube-apiserver's `--service-account-signing-key-file`). */
export interface ServiceAccountKeyPem {
  /** `sa.key`: PKCS#1 `RSA PRIVATE KEY`, as kubeadm writes it. */
  keyPem: string;
  /** `sa.pub`: PKIX `PUBLIC KEY` (`--service-account-key-file`). */
  publicKeyPem: string;
}

export interface ClusterPki {
  ca: KeyPairPem;
  apiserver: KeyPairPem;
  admin: KeyPairPem;
  sa: ServiceAccountKeyPem;
}

async function exportKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importKeyPem(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decode(pem)[0];
  if (der === undefined) throw new Error('no PEM block in private key');
  return webcrypto.subtle.importKey('pkcs8', der, ecAlg, true, ['sign']);
}

function serial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = (b[0] ?? 0) & 0x7f;
  return Buffer.from(b).toString('hex');
}

/** Escapes a value for an X.500 name string (`CN=...`). */
function dnValue(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, '\\$1');
}

export async function createCa(commonName = 'kubernetes', validDays = 3650): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(ecAlg, true, ['sign', 'verify']));
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${dnValue(commonName)}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + validDays * 86_400_000),
    keys,
    signingAlgorithm: ecAlg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

export interface LeafOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client' | 'both';
  validDays?: number;
}

/** Issues a certificate for a new key pair, signed by the CA. */
export async function issueCertificate(ca: KeyPairPem, opts: LeafOptions): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(ecAlg, true, ['sign', 'verify']));
  const certPem = await signPublicKey(ca, keys.publicKey, opts);
  return { certPem, keyPem: await exportKeyPem(keys.privateKey) };
}

/** Signs a given public key (e.g. from a CSR) with the CA. */
export async function signPublicKey(ca: KeyPairPem, publicKey: CryptoKey, opts: LeafOptions): Promise<string> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKeyPem(ca.keyPem);
  const name = [`CN=${dnValue(opts.commonName)}`, ...(opts.organizations ?? []).map((o) => `O=${dnValue(o)}`)].join(', ');
  const ekus: string[] = [];
  if (opts.usage === 'server' || opts.usage === 'both') ekus.push(x509.ExtendedKeyUsage.serverAuth);
  if (opts.usage === 'client' || opts.usage === 'both') ekus.push(x509.ExtendedKeyUsage.clientAuth);
  const altNames: x509.JsonGeneralName[] = [
    ...(opts.dnsNames ?? []).map((d) => ({ type: 'dns' as const, value: d })),
    ...(opts.ipAddresses ?? []).map((ip) => ({ type: 'ip' as const, value: ip })),
  ];
  const notBefore = new Date(Date.now() - 60_000);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(ekus, false),
    await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
  ];
  if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: name,
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (opts.validDays ?? 365) * 86_400_000),
    publicKey,
    signingKey: caKey,
    signingAlgorithm: ecAlg,
    extensions,
  });
  return cert.toString('pem');
}

/** kubeadm's discovery hash: `sha256:` + hex SHA-256 of the CA certificate's SubjectPublicKeyInfo (DER). */
export function caCertHash(caCertPem: string): string {
  const cert = new X509Certificate(caCertPem);
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/**
 * kubeadm's `sa` key (certs phase, CreateServiceAccountKeyAndPublicKeyFiles): an RSA 2048 key pair, the
 * private key PKCS#1-encoded, the public key PKIX-encoded.
 */
export async function createServiceAccountKey(): Promise<ServiceAccountKeyPem> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { keyPem: privateKey, publicKeyPem: publicKey };
}

export interface PkiOptions {
  /** Extra SANs for the serving certificate (the advertise address). */
  advertiseAddresses?: string[];
  /** The first IP of the service CIDR (the `kubernetes` Service). */
  serviceIp?: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function writePair(dir: string, base: string, pair: KeyPairPem): Promise<void> {
  await writeFile(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
  await writeFile(join(dir, `${base}.key`), pair.keyPem, { mode: 0o600 });
}

async function readPair(dir: string, base: string): Promise<KeyPairPem> {
  return {
    certPem: await readFile(join(dir, `${base}.crt`), 'utf8'),
    keyPem: await readFile(join(dir, `${base}.key`), 'utf8'),
  };
}

/**
 * Loads the PKI from `<dataDir>/pki`, creating whatever is missing; the service account key pair is kept
 * there too, so tokens issued before a restart stay valid after it. The serving certificate covers
 * 127.0.0.1, localhost, the advertise addresses, `kubernetes`, `kubernetes.default`,
 * `kubernetes.default.svc` (and `.cluster.local`) and the first service IP.
 */
export async function ensurePki(dataDir: string, opts: PkiOptions = {}): Promise<ClusterPki> {
  const dir = join(dataDir, 'pki');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The pieces are made at once: key generation runs on the thread pool, and the RSA service account key
  // alone took 75-160 ms, a tenth of every new cluster's start when made after the certificates.
  const sa = ensureServiceAccountKey(dir);
  const ca = ensureCa(dir);
  const [caPair, apiserver, admin, saPair] = await Promise.all([
    ca,
    ensureIssued(dir, 'apiserver', ca, {
      commonName: 'kube-apiserver',
      usage: 'server',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      ipAddresses: [...new Set(['127.0.0.1', opts.serviceIp ?? '10.96.0.1', ...(opts.advertiseAddresses ?? [])])],
    }),
    ensureIssued(dir, 'admin', ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client' }),
    sa,
  ]);
  return { ca: caPair, apiserver, admin, sa: saPair };
}

async function ensureCa(dir: string): Promise<KeyPairPem> {
  const ca = (await exists(join(dir, 'ca.key'))) ? await readPair(dir, 'ca') : await createCa();
  await writePair(dir, 'ca', ca);
  return ca;
}

/** The pair `<base>.crt`/`<base>.key` of `dir`, issued by `ca` when missing. */
async function ensureIssued(dir: string, base: string, ca: Promise<KeyPairPem>, leaf: LeafOptions): Promise<KeyPairPem> {
  if (await exists(join(dir, `${base}.key`))) return readPair(dir, base);
  const pair = await issueCertificate(await ca, leaf);
  await writePair(dir, base, pair);
  return pair;
}

async function ensureServiceAccountKey(dir: string): Promise<ServiceAccountKeyPem> {
  let sa: ServiceAccountKeyPem;
  if (await exists(join(dir, 'sa.key'))) {
    // kubeadm reuses an existing sa.key and derives sa.pub from it when that is missing.
    const keyPem = await readFile(join(dir, 'sa.key'), 'utf8');
    const publicKeyPem = (await exists(join(dir, 'sa.pub')))
      ? await readFile(join(dir, 'sa.pub'), 'utf8')
      : createPublicKey(keyPem).export({ type: 'spki', format: 'pem' }).toString();
    sa = { keyPem, publicKeyPem };
  } else {
    sa = await createServiceAccountKey();
  }
  await writeFile(join(dir, 'sa.key'), sa.keyPem, { mode: 0o600 });
  await writeFile(join(dir, 'sa.pub'), sa.publicKeyPem, { mode: 0o644 });
  return sa;
}
