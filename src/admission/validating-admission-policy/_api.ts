/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, as the
 * plugin reads them (k8s.io/api/admissionregistration/v1 types.go). The objects come from the API server's
 * watch cache, defaulted (`SetDefaults_ValidatingAdmissionPolicySpec`) and validated; the plugin still
 * treats every field as optional.
 */
import type { LabelSelector, ObjectMeta } from 'kubernetes-types/meta/v1.js';

export type FailurePolicyType = 'Fail' | 'Ignore';
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  /** `pods`, `pods/status`, `pods/*`, `*`, `*\/scale`, `*\/*`. */
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (defaulted to `*`). */
  scope?: string;
}

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: 'Exact' | 'Equivalent';
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: FailurePolicyType;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ValidatingAdmissionPolicy {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicySpec;
  status?: Record<string, unknown>;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ValidationAction[];
}

export interface ValidatingAdmissionPolicyBinding {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicyBindingSpec;
}
