/**
 * Compiling a policy's expressions (plugin.go `compilePolicy`; admission/plugin/cel compile.go and
 * composition.go): every validation, messageExpression, matchCondition, auditAnnotation and variable is parsed
 * in the admission environment, whose variables are `object`, `oldObject`, `request` (typed as
 * `kubernetes.AdmissionRequest`), `namespaceObject` (typed as `kubernetes.Namespace`), `variables` (an object
 * type whose fields are the variables declared so far) and, when the policy has a paramKind, `params`.
 *
 * As for CRD rules (src/apiserver/crd/cel/compile.ts), cel-go's type checker is approximated: undeclared
 * identifiers, fields the typed variables do not declare, and an output type that is not the one required
 * (`must evaluate to bool but got dyn`, where this port can tell the type: see `outputType`) are compile errors
 * with cel-go's text; other type errors show when the expression runs. `authorizer` (and
 * `authorizer.requestResource`) is declared everywhere, as upstream's `HasAuthorizer: true`.
 */
import { parse, plan, type CelEnv, type CelInput, type CelResult } from '@bufbuild/cel';
import { celIssue, newBaseEnv, references, syntaxIssue, typeIdents, undefinedFields, type Expr, type Reference, type TypeModel } from '../../apiserver/cel/index.js';
import type { ValidatingAdmissionPolicySpec } from './_api.js';

export type CelProgram = (vars: Record<string, CelInput>) => CelResult;

/** A compiled expression (`CompilationResult`): a program, or the compile error. */
export interface CompiledExpression {
  expression: string;
  program?: CelProgram;
  /** The expression's output type where this port can tell it (`int`, `bool`, `dyn`, ...). */
  outputType?: string;
  /** `compilation failed: ERROR: <input>:1:1: ...`, or `must evaluate to bool but got dyn`. */
  error?: string;
}

/** What the expressions of one policy may reference (`OptionalVariableDeclarations`). */
export interface Declarations {
  hasParams: boolean;
  /** The variables declared before this expression (all of them for validations). */
  variables: readonly string[];
  /**
   * Whether `variables` is declared (default true). The plugin always compiles with variable composition;
   * API validation does not when a policy has no variables, nor for matchConditions.
   */
  composition?: boolean;
  /** The output types of the variables declared before, where known (`variables.x` has that type). */
  variableTypes?: ReadonlyMap<string, string>;
}

/** What an expression must evaluate to (`ReturnTypes`): bool for validations and matchConditions, ... */
export type ReturnTypes = readonly string[];

/**
 * A declared CEL type as far as the field check needs it (`apiservercel.DeclType`): an object type with its
 * fields, a list or map of a type, or anything else (dyn, scalars).
 */
type DeclType = { fields: Readonly<Record<string, DeclType>> } | { elem: DeclType } | 'other';

const str: DeclType = 'other';
const obj = (fields: Record<string, DeclType>): DeclType => ({ fields });
const gvk = obj({ group: str, version: str, kind: str });
const gvr = obj({ group: str, version: str, resource: str });

/** `BuildRequestType`: `kubernetes.AdmissionRequest` without uid, object and oldObject. */
const requestType = obj({
  kind: gvk,
  resource: gvr,
  subResource: str,
  requestKind: gvk,
  requestResource: gvr,
  requestSubResource: str,
  name: str,
  namespace: str,
  operation: str,
  userInfo: obj({ username: str, uid: str, groups: { elem: str }, extra: { elem: { elem: str } } }),
  dryRun: str,
  options: str,
});

/** `BuildNamespaceType`: `kubernetes.Namespace`, with upstream's field names (its uid field is declared `UID`). */
const namespaceType = obj({
  metadata: obj({
    name: str,
    generateName: str,
    namespace: str,
    labels: { elem: str },
    annotations: { elem: str },
    UID: str,
    creationTimestamp: str,
    deletionGracePeriodSeconds: str,
    deletionTimestamp: str,
    generation: str,
    resourceVersion: str,
    finalizers: { elem: str },
  }),
  spec: obj({ finalizers: { elem: str } }),
  status: obj({ conditions: { elem: obj({ status: str, type: str, lastTransitionTime: str, message: str, reason: str }) }, phase: str }),
});

/** The declared types: object types declare their fields; lists and maps type their elements. */
const declTypes: TypeModel<DeclType> = {
  fields: (t) => (t !== 'other' && 'fields' in t ? new Map(Object.entries(t.fields)) : undefined),
  element: (t) => (t !== 'other' && 'elem' in t ? t.elem : undefined),
  iteration: (t) => (t !== 'other' && 'elem' in t ? t.elem : undefined),
};

export const ObjectVarName = 'object';
export const OldObjectVarName = 'oldObject';
export const ParamsVarName = 'params';
export const RequestVarName = 'request';
export const NamespaceVarName = 'namespaceObject';
export const VariableVarName = 'variables';
export const AuthorizerVarName = 'authorizer';

let sharedEnv: CelEnv | undefined;

/**
 * The base environment (Kubernetes' CEL libraries), built once and never changed: shared by every policy as
 * upstream shares its lazily built composition environment template (plugin.go).
 */
export function admissionEnv(): CelEnv {
  sharedEnv ??= newBaseEnv();
  return sharedEnv;
}

const boolOperators = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '_&&_', '_||_', '!_', '@in', '@not_strictly_false']);
const functionResults: Readonly<Record<string, string>> = {
  size: 'int',
  int: 'int',
  uint: 'uint',
  double: 'double',
  string: 'string',
  bool: 'bool',
  startsWith: 'bool',
  endsWith: 'bool',
  contains: 'bool',
  matches: 'bool',
  // The authz library's decision (authz.go): `allowed()`, `errored()`, `reason()`, `error()`.
  allowed: 'bool',
  errored: 'bool',
  reason: 'string',
  error: 'string',
};
const requestFieldTypes: Readonly<Record<string, string>> = {
  subResource: 'string',
  requestSubResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  dryRun: 'bool',
  options: 'dyn',
};

/**
 * The output type cel-go's checker gives an expression, where this port can tell it without a full checker:
 * literals, `object`/`oldObject`/`params` and what is selected or indexed from them (`dyn`), the scalar fields of
 * `request`, variables of a known type, comparisons and logical operators, `has()`, the boolean macros, and a few
 * conversions. Undefined where it cannot tell (then nothing is reported).
 */
function outputType(e: Expr | undefined, decls: Declarations, scope: ReadonlyMap<string, string | undefined> = new Map()): string | undefined {
  if (e === undefined) return undefined;
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      switch (k.value.constantKind.case) {
        case 'boolValue':
          return 'bool';
        case 'int64Value':
          return 'int';
        case 'uint64Value':
          return 'uint';
        case 'doubleValue':
          return 'double';
        case 'stringValue':
          return 'string';
        case 'bytesValue':
          return 'bytes';
        case 'nullValue':
          return 'null_type';
        default:
          return undefined;
      }
    case 'identExpr': {
      const n = k.value.name;
      if (scope.has(n)) return scope.get(n);
      return n === ObjectVarName || n === OldObjectVarName || n === ParamsVarName ? 'dyn' : undefined;
    }
    case 'selectExpr': {
      if (k.value.testOnly) return 'bool';
      const op = k.value.operand;
      if (op?.exprKind.case === 'identExpr' && !scope.has(op.exprKind.value.name)) {
        if (op.exprKind.value.name === RequestVarName) return requestFieldTypes[k.value.field];
        if (op.exprKind.value.name === VariableVarName) return decls.variableTypes?.get(k.value.field);
      }
      return outputType(op, decls, scope) === 'dyn' ? 'dyn' : undefined;
    }
    case 'callExpr': {
      const f = k.value.function;
      if (boolOperators.has(f)) return 'bool';
      if (f === '_[_]') return outputType(k.value.args[0], decls, scope) === 'dyn' ? 'dyn' : undefined;
      if (f === '_?_:_') {
        const a = outputType(k.value.args[1], decls, scope);
        const b = outputType(k.value.args[2], decls, scope);
        return a !== undefined && a === b ? a : undefined;
      }
      return functionResults[f];
    }
    case 'comprehensionExpr': {
      const c = k.value;
      const inner = new Map(scope);
      inner.set(c.iterVar, undefined);
      inner.set(c.accuVar, outputType(c.accuInit, decls, scope));
      return outputType(c.result, decls, inner);
    }
    default:
      return undefined;
  }
}

/** `CompileCELExpression` in the environment `decls` describes; `returnTypes` as the expression's accessor gives them. */
export function compileExpression(expression: string, decls: Declarations, returnTypes?: ReturnTypes): CompiledExpression {
  let parsed;
  try {
    parsed = parse(expression);
  } catch (e) {
    return { expression, error: `compilation failed: ${syntaxIssue(expression, e)}` };
  }
  const declared = new Set([ObjectVarName, OldObjectVarName, RequestVarName, NamespaceVarName, AuthorizerVarName]);
  if (decls.composition !== false) declared.add(VariableVarName);
  if (decls.hasParams) declared.add(ParamsVarName);
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = pos;
  const refs: Reference[] = [];
  references(parsed.expr, new Set(), positions, refs);
  const undeclared = refs.filter((r) => !declared.has(r.name) && !typeIdents.has(r.name));
  if (undeclared.length > 0) {
    return { expression, error: `compilation failed: ${undeclared.map((r) => celIssue(expression, r.offset, `undeclared reference to '${r.name}' (in container '')`)).join('\n')}` };
  }
  const types = new Map<string, DeclType>([
    [RequestVarName, requestType],
    [NamespaceVarName, namespaceType],
    [VariableVarName, obj(Object.fromEntries(decls.variables.map((v) => [v, 'other'])))],
  ]);
  const unknown = undefinedFields(parsed.expr, positions, types, declTypes);
  if (unknown.length > 0) {
    return { expression, error: `compilation failed: ${unknown.map((u) => celIssue(expression, u.offset, `undefined field '${u.field}'`)).join('\n')}` };
  }
  const type = outputType(parsed.expr, decls);
  if (returnTypes !== undefined && type !== undefined && !returnTypes.includes(type)) {
    const reason = returnTypes.length === 1 ? `must evaluate to ${returnTypes[0] ?? ''} but got ${type}` : `must evaluate to one of [${returnTypes.join(' ')}] but got ${type}`;
    return { expression, error: reason, outputType: type };
  }
  return { expression, program: plan(admissionEnv(), parsed), ...(type !== undefined ? { outputType: type } : {}) };
}

/** The return types of validations and matchConditions, messageExpressions, and audit annotation values. */
export const boolReturn: ReturnTypes = ['bool'];
export const stringReturn: ReturnTypes = ['string'];
export const auditAnnotationReturn: ReturnTypes = ['string', 'null_type'];

export interface CompiledValidation {
  expression: CompiledExpression;
  message: string;
  reason: string | undefined;
  messageExpression: CompiledExpression | undefined;
}

/** A policy ready to evaluate (`compilePolicy`): its evaluator's compiled expressions. */
export interface CompiledPolicy {
  hasParams: boolean;
  variables: { name: string; expression: CompiledExpression }[];
  matchConditions: { name: string; expression: CompiledExpression }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; expression: CompiledExpression }[];
}

/** Compiles every expression of a policy spec; variables see only the variables declared before them. */
export function compilePolicy(spec: ValidatingAdmissionPolicySpec): CompiledPolicy {
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const declared: string[] = [];
  const variableTypes = new Map<string, string>();
  const variables: CompiledPolicy['variables'] = [];
  for (const v of spec.variables ?? []) {
    const expression = compileExpression(v.expression ?? '', { hasParams, variables: [...declared], variableTypes: new Map(variableTypes) });
    variables.push({ name: v.name, expression });
    declared.push(v.name);
    if (expression.outputType !== undefined) variableTypes.set(v.name, expression.outputType);
  }
  const decls: Declarations = { hasParams, variables: declared, variableTypes };
  return {
    hasParams,
    variables,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, expression: compileExpression(m.expression ?? '', decls, boolReturn) })),
    validations: (spec.validations ?? []).map((v) => ({
      expression: compileExpression(v.expression ?? '', decls, boolReturn),
      message: v.message ?? '',
      reason: v.reason,
      messageExpression: (v.messageExpression ?? '') !== '' ? compileExpression(v.messageExpression ?? '', decls, stringReturn) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, expression: compileExpression(a.valueExpression ?? '', decls, auditAnnotationReturn) })),
  };
}
