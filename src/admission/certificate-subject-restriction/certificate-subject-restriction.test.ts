import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { resources } from '../../api/resources.js';
import { createCsr } from '../../bootstrap/csr.js';
import { attrs } from '../_testing.js';
import { create } from './certificate-subject-restriction.js';

// plugin/pkg/admission/certificates/subjectrestriction/admission_test.go (TestPlugin), v1.32.

async function csr(name: string, signerName: string, organizations: string[]): Promise<CertificateSigningRequest> {
  const { csrPem } = await createCsr('', organizations);
  return { kind: 'CertificateSigningRequest', metadata: { name }, spec: { signerName, request: Buffer.from(csrPem).toString('base64') } };
}

const client = 'kubernetes.io/kube-apiserver-client';
const kubelet = 'kubernetes.io/kube-apiserver-client-kubelet';

test('TestPlugin_Validate/ignored resource', async () => {
  await create().validate(attrs({ kind: 'Bar', metadata: { name: 'x' } }, { resource: { ...resources.pods, group: 'foo', resource: 'bar' } }));
});

test('TestPlugin_Validate/ignored subresource', async () => {
  await create().validate(attrs(await csr('x', client, ['system:masters']), { resource: resources.certificatesigningrequests, subresource: 'approve' }));
});

const cases: { name: string; obj: () => Promise<CertificateSigningRequest>; wantErr: string }[] = [
  { name: 'some other signer', obj: () => csr('', kubelet, ['system:masters']), wantErr: '' },
  {
    name: 'invalid request',
    obj: async () => ({ kind: 'CertificateSigningRequest', metadata: { name: 'bear' }, spec: { signerName: client, request: Buffer.from('this is not a CSR').toString('base64') } }),
    wantErr: 'certificatesigningrequests.certificates.k8s.io "bear" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST',
  },
  { name: 'some other group', obj: () => csr('', client, ['system:admin']), wantErr: '' },
  {
    name: 'request for system:masters',
    obj: () => csr('pooh', client, ['system:masters']),
    wantErr: 'certificatesigningrequests.certificates.k8s.io "pooh" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
  },
];

for (const tc of cases) {
  test(`TestPlugin_Validate/${tc.name}`, async () => {
    const run = create().validate(attrs(await tc.obj(), { resource: resources.certificatesigningrequests }));
    if (tc.wantErr === '') await run;
    else await assert.rejects(run, (e: Error) => e.message === tc.wantErr);
  });
}

test('only CREATE is checked', async () => {
  await create().validate(attrs(await csr('pooh', client, ['system:masters']), { resource: resources.certificatesigningrequests, operation: 'UPDATE' }));
});
