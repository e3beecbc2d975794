/**
 * CertificateSubjectRestriction (`plugin/pkg/admission/certificates/subjectrestriction`, v1.32): a
 * CertificateSigningRequest created for the `kubernetes.io/kube-apiserver-client` signer may not ask for
 * the `system:masters` group (an Organization of its subject), which would bypass authorization.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { parseCsr } from '../../bootstrap/csr.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../types.js';

export const name = names.CertificateSubjectRestriction;

/** `certificatesv1.KubeAPIServerClientSignerName`. */
export const kubeAPIServerClientSignerName = 'kubernetes.io/kube-apiserver-client';

export class CertificateSubjectRestriction implements ValidatingPlugin {
  readonly name = name;

  async validate(a: AdmissionAttributes): Promise<void> {
    // `admission.NewHandler(admission.Create)`.
    if (a.operation !== 'CREATE' || !isResource(a, 'certificates.k8s.io', 'certificatesigningrequests') || a.subresource !== '') return;
    const csr = a.object as CertificateSigningRequest | undefined;
    if (csr?.spec?.signerName !== kubeAPIServerClientSignerName) return;
    const pem = Buffer.from(csr.spec.request, 'base64').toString('utf8');
    let organizations: string[];
    try {
      organizations = (await parseCsr(pem)).organizations;
    } catch (e) {
      throw admissionForbidden(a, `failed to parse CSR: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (organizations.includes('system:masters')) {
      throw admissionForbidden(a, `use of ${kubeAPIServerClientSignerName} signer with system:masters group is not allowed`);
    }
  }
}

export function create(): CertificateSubjectRestriction {
  return new CertificateSubjectRestriction();
}
