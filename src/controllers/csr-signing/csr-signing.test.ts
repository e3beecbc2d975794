import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCsr, parseCsr, signCsr } from '../../bootstrap/csr.js';
import { createCa } from '../../bootstrap/pki.js';
import { x509 } from '../../bootstrap/_x509.js';
import { isKubeletClientCsr } from './csr-signing.js';

test('kubelet client CSRs are recognized by subject, SANs and usages (IsKubeletClientCSR)', async () => {
  const good = await parseCsr((await createCsr('system:node:n1', ['system:nodes'])).csrPem);
  assert.equal(isKubeletClientCsr(good, ['digital signature', 'client auth']), true);
  assert.equal(isKubeletClientCsr(good, ['key encipherment', 'digital signature', 'client auth']), true);
  assert.equal(isKubeletClientCsr(good, ['digital signature', 'server auth']), false);
  assert.equal(isKubeletClientCsr(good, ['digital signature', 'client auth', 'server auth']), false);
  assert.equal(isKubeletClientCsr(await parseCsr((await createCsr('n1', ['system:nodes'])).csrPem), ['client auth']), false);
  assert.equal(isKubeletClientCsr(await parseCsr((await createCsr('system:node:n1', ['system:masters'])).csrPem), ['client auth']), false);
  assert.equal(isKubeletClientCsr(await parseCsr((await createCsr('system:node:n1', ['system:nodes', 'other'])).csrPem), ['client auth']), false);
});

test('a signed CSR keeps its subject and chains to the CA with client auth', async () => {
  const ca = await createCa();
  const { csrPem } = await createCsr('system:node:n1', ['system:nodes']);
  const cert = new x509.X509Certificate(await signCsr(ca, csrPem, { usage: 'client', validDays: 1 }));
  assert.equal(cert.subjectName.getField('CN')[0], 'system:node:n1');
  assert.deepEqual(cert.subjectName.getField('O'), ['system:nodes']);
  assert.equal(await cert.verify({ publicKey: new x509.X509Certificate(ca.certPem).publicKey }), true);
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  assert.deepEqual([...(eku?.usages ?? [])], [x509.ExtendedKeyUsage.clientAuth]);
});
