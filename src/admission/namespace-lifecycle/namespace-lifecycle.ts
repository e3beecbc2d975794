/**
 * NamespaceLifecycle (`k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle`): refuses new objects in
 * missing or terminating namespaces and the deletion of the immortal namespaces. Mutating phase only
 * (upstream implements `Admit`).
 */
import { ApiError, apiErrors, StatusReason } from '../../api/errors.js';
import { admissionForbidden } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin } from '../types.js';

export const name = names.NamespaceLifecycle;

/** `v1.NamespaceTerminatingCause`. */
export const namespaceTerminatingCause = 'NamespaceTerminating';

export interface NamespaceLifecycleOptions {
  /** Namespaces that may never be deleted; kube-apiserver uses default, kube-system, kube-public. */
  immortalNamespaces?: readonly string[];
}

export class NamespaceLifecycle implements MutatingPlugin {
  readonly name = name;
  private readonly immortal: Set<string>;

  constructor(opts: NamespaceLifecycleOptions = {}) {
    this.immortal = new Set(opts.immortalNamespaces ?? ['default', 'kube-system', 'kube-public']);
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
    if (a.operation === 'DELETE' && isNamespace && this.immortal.has(a.name)) {
      throw apiErrors.forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
    }
    if (a.namespace === '' && !isNamespace) return;
    if (isNamespace) return;
    if (a.operation === 'DELETE') return;
    if (a.resource.group === 'authorization.k8s.io' && (a.resource.resource === 'localsubjectaccessreviews' || a.resource.resource === 'selfsubjectaccessreviews')) return;
    const ns = await lookup.getNamespace(a.namespace);
    if (ns === undefined) throw apiErrors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
    if (a.operation === 'CREATE' && ns.status?.phase === 'Terminating') {
      const e = admissionForbidden(a, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
      throw new ApiError(e.code, StatusReason.Forbidden, e.message, {
        ...e.details,
        causes: [{ reason: namespaceTerminatingCause, message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }
}

export function create(opts: NamespaceLifecycleOptions = {}): NamespaceLifecycle {
  return new NamespaceLifecycle(opts);
}
