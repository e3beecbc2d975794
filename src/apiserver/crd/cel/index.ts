/**
 * CRD validation rules (`x-kubernetes-validations`), as apiextensions-apiserver's schema/cel package runs
 * them: compiling a rule (compile.ts, check.ts), the values rules see (values.ts), evaluating them over an
 * object and its old version (validator.ts), and the Kubernetes CEL libraries they may call (library.ts,
 * src/apiserver/cel; k8s.io/apiserver/pkg/cel/library).
 */
export { compileRule, newRuleEnv, validFieldPath, type ValidationRule } from './compile.js';
export { CelValidator, validateCelRules } from './validator.js';
