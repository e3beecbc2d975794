/**
 * APIService validation (kube-aggregator `pkg/apis/apiregistration/validation`): the name is the service's
 * `<version>.<group>` (`v1.` for the legacy group), a group that is a DNS subdomain, a version that is a
 * DNS-1035 label, priorities in range, and either a local service (no `service`, no CA bundle) or a
 * reachable one (namespace, name, port).
 */
import type { APIService } from '../local-apiservices.js';
import { type FieldError, fieldErrors, Path } from '../../api/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, validatePathSegmentName } from './_names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

/** `ValidateAPIService`. */
export function validateAPIService(s: APIService): FieldError[] {
  const spec = s.spec ?? {};
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const requiredName = `${version}.${group}`;
  const errs = validateObjectMeta(s.metadata, {
    namespaced: false,
    nameFn: (name, prefix) => {
      const minimal = validatePathSegmentName(name, prefix);
      if (minimal.length > 0) return minimal;
      return name !== requiredName ? [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`] : [];
    },
  });
  const p = Path.root('spec');
  if (group === '' && version !== 'v1') errs.push(fieldErrors.required(p.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid(p.child('group'), group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldErrors.invalid(p.child('version'), version, msg));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldErrors.invalid(p.child('groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'));
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldErrors.invalid(p.child('versionPriority'), versionPriority, 'must be positive and less than 1000'));
  const caBundle = spec.caBundle ?? '';
  const insecure = spec.insecureSkipTLSVerify === true;
  if (spec.service === undefined || spec.service === null) {
    // caBundle is base64 on the wire: the message counts the decoded bytes.
    if (caBundle !== '') errs.push(fieldErrors.invalid(p.child('caBundle'), `${Buffer.from(caBundle, 'base64').length} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(fieldErrors.invalid(p.child('insecureSkipTLSVerify'), insecure, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const svc = spec.service;
  if ((svc.namespace ?? '') === '') errs.push(fieldErrors.required(p.child('service', 'namespace'), ''));
  if ((svc.name ?? '') === '') errs.push(fieldErrors.required(p.child('service', 'name'), ''));
  const port = svc.port ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldErrors.invalid(p.child('service', 'port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (insecure && caBundle !== '') errs.push(fieldErrors.invalid(p.child('insecureSkipTLSVerify'), insecure, 'may not be true if caBundle is present'));
  return errs;
}

/** `ValidateAPIServiceUpdate`. */
export function validateAPIServiceUpdate(s: APIService, old: APIService): FieldError[] {
  return [...validateObjectMetaUpdate(s.metadata, old.metadata), ...validateAPIService(s)];
}

/** `ValidateAPIServiceStatusUpdate`: condition statuses are True, False or Unknown. */
export function validateAPIServiceStatusUpdate(s: APIService, old: APIService): FieldError[] {
  const errs = validateObjectMetaUpdate(s.metadata, old.metadata);
  (s.status?.conditions ?? []).forEach((c, i) => {
    if (c.status !== 'True' && c.status !== 'False' && c.status !== 'Unknown') {
      errs.push(fieldErrors.notSupported(Path.root('status').child('conditions').index(i).child('status'), c.status, ['True', 'False', 'Unknown']));
    }
  });
  return errs;
}
