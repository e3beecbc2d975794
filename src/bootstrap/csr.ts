/**
 * The kubelet's TLS bootstrap key material: a private key and a PKCS#10 request for `system:node:<name>` in
 * `system:nodes` (k8s.io/client-go/util/certificate/csr), and the CA side that reads such a request and
 * signs its public key (kube-controller-manager's csrsigning).
 */
import { webcrypto } from 'node:crypto';
import { x509 } from './_x509.js';
import { signPublicKey, type KeyPairPem, type LeafOptions } from './pki.js';

const ecAlg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface CsrAndKey {
  csrPem: string;
  keyPem: string;
}

/** A new EC P-256 key and a CSR with the given subject (as the kubelet makes for its client certificate). */
export async function createCsr(commonName: string, organizations: readonly string[]): Promise<CsrAndKey> {
  const keys = await webcrypto.subtle.generateKey(ecAlg, true, ['sign', 'verify']);
  const esc = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');
  const name = [...organizations.map((o) => `O=${esc(o)}`), `CN=${esc(commonName)}`].join(', ');
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: ecAlg });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { csrPem: csr.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

export interface ParsedCsr {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** Whether the request's self-signature verifies. */
  signatureValid: boolean;
}

/** Reads a PEM CSR (`ParseCSR`); throws when it is not one (upstream's text when the first PEM block is not a request). */
export async function parseCsr(pem: string): Promise<ParsedCsr> {
  if (/^-----BEGIN ([^-]+)-----/m.exec(pem)?.[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const csr = new x509.Pkcs10CertificateRequest(pem);
  const san = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const names: x509.JsonGeneralName[] = san?.names.toJSON() ?? [];
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === 'ip').map((n) => n.value),
    emailAddresses: names.filter((n) => n.type === 'email').map((n) => n.value),
    uris: names.filter((n) => n.type === 'url').map((n) => n.value),
    signatureValid: await csr.verify(),
  };
}

/** Signs the CSR's public key with the CA, keeping its subject (the signer decides usages and lifetime). */
export async function signCsr(ca: KeyPairPem, csrPem: string, opts: Omit<LeafOptions, 'commonName' | 'organizations'>): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const alg = csr.publicKey.algorithm as { name: string };
  const importAlg = alg.name === 'ECDSA' ? ecAlg : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const publicKey = await webcrypto.subtle.importKey('spki', csr.publicKey.rawData, importAlg, true, ['verify']);
  return signPublicKey(ca, publicKey, {
    ...opts,
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
  });
}
