/**
 * Node client certificates for TLS bootstrap, as kube-controller-manager's `csrapproving` and `csrsigning`
 * controllers handle them (pkg/controller/certificates/approver/sarapprove.go, signer/signer.go):
 * - approve: a pending `kubernetes.io/kube-apiserver-client-kubelet` CSR for `system:node:<name>` in
 *   `system:nodes` is approved (reason `AutoApproved`) when a SubjectAccessReview says its requester may
 *   create `certificatesigningrequests/nodeclient` (or `selfnodeclient` when renewing its own);
 * - sign: an approved, unsigned CSR of that signer gets `status.certificate`, signed by the cluster CA
 *   for at most `--cluster-signing-duration` (1 year) or the CSR's `expirationSeconds`.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { ResourceType } from '../../api/resources.js';
import { resources } from '../../api/resources.js';
import { isNotFound } from '../../api/errors.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';
import type { ParsedCsr } from '../../bootstrap/csr.js';
import type { KeyPairPem } from '../../bootstrap/pki.js';

/**
 * The CSR codec, loaded by the first CSR: it brings @peculiar/x509, whose loading took a tenth of a second
 * of the components thread's start, while the nodes were registering, and most clusters never see a CSR.
 */
function csrCodec(): Promise<typeof import('../../bootstrap/csr.js')> {
  return import('../../bootstrap/csr.js');
}

export const kubeletClientSignerName = 'kubernetes.io/kube-apiserver-client-kubelet';
export const nodeClientMessage = 'Auto approving kubelet client certificate after SubjectAccessReview.';
export const selfNodeClientMessage = 'Auto approving self kubelet client certificate after SubjectAccessReview.';
/** `--cluster-signing-duration` default (8760h). */
export const defaultSigningDurationMs = 365 * 24 * 3600 * 1000;

const subjectAccessReviews: ResourceType = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };

export interface CsrSigningOptions {
  /** The cluster CA (`--cluster-signing-cert-file`/`--cluster-signing-key-file`); without it nothing is signed. */
  ca?: KeyPairPem;
  signingDurationMs?: number;
}

/** `IsKubeletClientCSR`: O = [system:nodes], CN system:node:*, no SANs, client auth usages only. */
export function isKubeletClientCsr(req: ParsedCsr, usages: readonly string[]): boolean {
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return false;
  if (req.dnsNames.length > 0 || req.emailAddresses.length > 0 || req.ipAddresses.length > 0 || req.uris.length > 0) return false;
  if (!req.commonName.startsWith('system:node:')) return false;
  const allowed = new Set(['key encipherment', 'digital signature', 'client auth']);
  if (!usages.includes('client auth')) return false;
  return usages.every((u) => allowed.has(u));
}

function condition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type);
}

export class CsrSigningController implements Controller {
  readonly name = names.CertificateSigning;
  private readonly queue;
  private readonly csrs;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly o: CsrSigningOptions,
  ) {
    this.queue = ctx.newQueue();
    this.csrs = ctx.informer<CertificateSigningRequest>(resources.certificatesigningrequests);
  }

  start(): void {
    const enqueue = (c: CertificateSigningRequest): void => this.queue.add(c.metadata?.name ?? '');
    this.csrs.addHandlers({ onAdd: enqueue, onUpdate: (_, c) => enqueue(c) });
    void runWorkers(this.queue, (name) => this.sync(name), 2, (key, err) => console.error(`${names.CertificateSigning}: ${key}:`, err));
  }

  stop(): void {
    this.queue.shutDown();
  }

  async sync(name: string): Promise<void> {
    const csr = this.csrs.get(name);
    if (csr === undefined || csr.spec.signerName !== kubeletClientSignerName) return;
    if (csr.status?.certificate !== undefined && csr.status.certificate !== '') return;
    if (condition(csr, 'Denied') || condition(csr, 'Failed')) return;
    if (!condition(csr, 'Approved')) {
      await this.approve(csr);
      return;
    }
    await this.sign(csr);
  }

  private async approve(csr: CertificateSigningRequest): Promise<void> {
    const { parseCsr } = await csrCodec();
    let parsed: ParsedCsr;
    try {
      parsed = await parseCsr(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
    } catch {
      return;
    }
    if (!isKubeletClientCsr(parsed, csr.spec.usages ?? [])) return;
    const self = csr.spec.username === parsed.commonName;
    const recognizers = self ? [['selfnodeclient', selfNodeClientMessage], ['nodeclient', nodeClientMessage]] : [['nodeclient', nodeClientMessage]];
    for (const [subresource, message] of recognizers) {
      if (!(await this.authorized(csr, subresource ?? ''))) continue;
      const now = new Date(this.ctx.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const updated: CertificateSigningRequest = {
        ...csr,
        status: {
          ...(csr.status ?? {}),
          conditions: [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: message ?? '', lastUpdateTime: now, lastTransitionTime: now }],
        },
      };
      await this.ctx.client.update(resources.certificatesigningrequests, updated, { subresource: 'approval' });
      return;
    }
  }

  private async authorized(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: csr.spec.username ?? '',
        ...(csr.spec.uid !== undefined ? { uid: csr.spec.uid } : {}),
        groups: csr.spec.groups ?? [],
        ...(csr.spec.extra !== undefined ? { extra: csr.spec.extra } : {}),
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    };
    const out = await this.ctx.client.create<typeof sar & { status?: { allowed?: boolean } }>(subjectAccessReviews, sar);
    return out.status?.allowed === true;
  }

  private async sign(csr: CertificateSigningRequest): Promise<void> {
    const ca = this.o.ca;
    if (ca === undefined) return;
    const pem = Buffer.from(csr.spec.request, 'base64').toString('utf8');
    const { parseCsr, signCsr } = await csrCodec();
    const parsed = await parseCsr(pem);
    if (!isKubeletClientCsr(parsed, csr.spec.usages ?? [])) return;
    const maxMs = this.o.signingDurationMs ?? defaultSigningDurationMs;
    const requested = csr.spec.expirationSeconds !== undefined ? Math.max(600, csr.spec.expirationSeconds) * 1000 : maxMs;
    const validMs = Math.min(maxMs, requested);
    const certPem = await signCsr(ca, pem, { usage: 'client', validDays: validMs / 86_400_000 });
    try {
      await this.ctx.client.update(
        resources.certificatesigningrequests,
        { ...csr, status: { ...(csr.status ?? {}), certificate: Buffer.from(certPem).toString('base64') } },
        { subresource: 'status' },
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext, o: CsrSigningOptions): Controller {
  return new CsrSigningController(ctx, o);
}
