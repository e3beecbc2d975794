/**
 * The Kubernetes CEL environment shared by CRD validation rules and admission policies (k8s.io/apiserver
 * `pkg/cel`): the base environment and compile helpers (expr.ts) and the Kubernetes CEL libraries
 * (library.ts, with IP/CIDR in net.ts and the opaque value encoding in opaque.ts).
 */
export { celIssue, newBaseEnv, references, runtimeErrorMessage, syntaxIssue, typeIdents, type Expr, type Reference } from './expr.js';
export { undefinedFields, type TypeModel, type UndefinedField } from './undefined-fields.js';
export { kubernetesCelFunctions, mapList, optionalNone, optionalOf, setList } from './library.js';
export { authorizerValue, AuthzSession, evaluateWithAuthz, type AuthorizeFunc, type AuthzDecision, type RequestResource } from './authz.js';
