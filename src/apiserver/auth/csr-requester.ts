/**
 * The CSR strategy's `PrepareForCreate` (pkg/registry/certificates/certificates/strategy.go): the requester
 * recorded in `spec.username`, `spec.uid`, `spec.groups` and `spec.extra` is always the authenticated
 * user, whatever the client sent, and a new CSR has no status. The approver's SubjectAccessReview asks
 * about that user.
 */
import type { AdmissionRequest } from '../registry/policy.js';

export function setCsrRequester(req: AdmissionRequest): void {
  if (req.operation !== 'CREATE' || req.subresource !== '' || req.def.group !== 'certificates.k8s.io' || req.def.resource !== 'certificatesigningrequests') return;
  const obj = req.object;
  if (obj === undefined) return;
  const spec = { ...((obj['spec'] ?? {}) as Record<string, unknown>) };
  delete spec['username'];
  delete spec['uid'];
  delete spec['groups'];
  delete spec['extra'];
  if (req.userInfo.username !== '') spec['username'] = req.userInfo.username;
  if (req.userInfo.uid !== undefined && req.userInfo.uid !== '') spec['uid'] = req.userInfo.uid;
  if (req.userInfo.groups.length > 0) spec['groups'] = [...req.userInfo.groups];
  if (req.userInfo.extra !== undefined && Object.keys(req.userInfo.extra).length > 0) spec['extra'] = req.userInfo.extra;
  obj['spec'] = spec;
  delete obj['status'];
}
