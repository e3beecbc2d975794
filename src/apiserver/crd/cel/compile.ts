/**
 * Compiling a CRD's `x-kubernetes-validations` rules (apiextensions-apiserver `schema/cel/compilation.go`):
 * each rule and messageExpression is parsed into a program over `self` (and `oldSelf`), and a rule's
 * `fieldPath` is resolved against the schema (`ValidFieldPath`). Failures carry upstream's detail text
 * (`compilation failed: ERROR: <input>:1:7: ...`), shared by the CRD's own validation and by the custom
 * resource validator.
 *
 * Differences from cel-go, whose full type checker this port does not have: undeclared identifiers and
 * undefined fields are reported as cel-go reports them (cel-check.ts), but other type errors (a comparison of a
 * string with an int, a rule that does not return a bool) are found only when a rule runs; and the parser's
 * syntax-error wording is @bufbuild/cel's after upstream's `ERROR: <input>:line:col: Syntax error:` prefix.
 * Cost estimation (the per-rule and per-CRD cost budgets) is not done.
 */
import { parse, plan, type CelEnv, type CelResult, type CelInput } from '@bufbuild/cel';
import { celIssue, newBaseEnv, references, syntaxIssue, typeIdents, type Reference } from '../../cel/expr.js';
import { schemaUndefinedFields, type CheckedType } from './check.js';
import type { JSONSchemaProps } from '../crd-schema.js';

/** One entry of `x-kubernetes-validations` (apiextensions `ValidationRule`). */
export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export type CelProgram = (vars: Record<string, CelInput>) => CelResult;

/** A rule ready to evaluate, or why it is not (`CompilationResult`). */
export interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  /** The rule references `oldSelf`: a transition rule. */
  usesOldSelf: boolean;
  /** `compilation failed: ...` and the like; the rule is not run. */
  error?: string;
  /** True when the error is a Required one (an empty rule). */
  errorRequired?: boolean;
  messageProgram?: CelProgram;
  messageError?: string;
  /** The rule's fieldPath as a field path (`spec.foo`), when set and valid. */
  fieldPath?: string;
}

export const ScopedVarName = 'self';
export const OldScopedVarName = 'oldSelf';

/** The environment every CRD rule is compiled in: CEL's standard library and Kubernetes' extensions. */
export function newRuleEnv(): CelEnv {
  return newBaseEnv();
}

interface Parsed {
  program?: CelProgram;
  usesOldSelf: boolean;
  issues?: string;
}

function compileExpression(env: CelEnv, source: string, declared: ReadonlySet<string>, types: ReadonlyMap<string, CheckedType>): Parsed {
  let parsed;
  try {
    parsed = parse(source);
  } catch (e) {
    return { usesOldSelf: false, issues: syntaxIssue(source, e) };
  }
  const refs: Reference[] = [];
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = pos;
  references(parsed.expr, new Set(), positions, refs);
  const undeclared = refs.filter((r) => !declared.has(r.name) && !typeIdents.has(r.name));
  if (undeclared.length > 0) {
    return { usesOldSelf: false, issues: undeclared.map((r) => celIssue(source, r.offset, `undeclared reference to '${r.name}' (in container '')`)).join('\n') };
  }
  const unknown = schemaUndefinedFields(parsed.expr, positions, types);
  if (unknown.length > 0) return { usesOldSelf: false, issues: unknown.map((u) => celIssue(source, u.offset, `undefined field '${u.field}'`)).join('\n') };
  const program = plan(env, parsed) as CelProgram;
  return { program, usesOldSelf: refs.some((r) => r.name === OldScopedVarName) };
}

const declaredVars: ReadonlySet<string> = new Set([ScopedVarName, OldScopedVarName]);

/**
 * `Compile` for one rule of a schema node: `schema` types `self` (and `oldSelf`, unless the rule binds it as an
 * optional) and resolves the rule's fieldPath; `resourceRoot` marks the root of a resource (the custom
 * resource's or an embedded one), whose apiVersion, kind, metadata.name and metadata.generateName are declared.
 */
export function compileRule(env: CelEnv, rule: ValidationRule, schema: JSONSchemaProps, resourceRoot = false): CompiledRule {
  const source = rule.rule ?? '';
  if (source.trim() === '') return { rule, usesOldSelf: false, error: 'rule is not specified', errorRequired: true };
  const compiled: CompiledRule = { rule, usesOldSelf: false };
  const selfType: CheckedType = { schema, resource: resourceRoot || schema['x-kubernetes-embedded-resource'] === true };
  const types = new Map<string, CheckedType>([[ScopedVarName, selfType]]);
  if (rule.optionalOldSelf !== true) types.set(OldScopedVarName, selfType);
  const r = compileExpression(env, source, declaredVars, types);
  if (r.issues !== undefined) compiled.error = `compilation failed: ${r.issues}`;
  else {
    compiled.usesOldSelf = r.usesOldSelf;
    if (r.program !== undefined) compiled.program = r.program;
  }
  const msgExpr = rule.messageExpression ?? '';
  if (msgExpr.trim() !== '') {
    const m = compileExpression(env, msgExpr, declaredVars, types);
    if (m.issues !== undefined) compiled.messageError = `messageExpression compilation failed: ${m.issues}`;
    else if (m.program !== undefined) compiled.messageProgram = m.program;
  }
  if ((rule.fieldPath ?? '') !== '') {
    const p = validFieldPath(rule.fieldPath ?? '', schema);
    if (typeof p === 'string') compiled.fieldPath = p;
  }
  return compiled;
}

/** `unescapeSingleQuote`: the escapes a quoted fieldPath segment may use. */
function unescapeSingleQuote(s: string): string | Error {
  const map: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };
  let err: Error | undefined;
  const out = s.replace(/\\./g, (m) => {
    const c = map[m[1] ?? ''];
    if (c === undefined) err ??= new Error(`invalid escape char ${m}`);
    return c ?? '';
  });
  return err ?? out;
}

/** The tokens of a fieldPath: `.`, `[`, `]`, single-quoted strings and the names in between. */
function fieldPathTokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i] ?? '';
    if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, j + 1));
      i = j + 1;
    } else if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j] ?? '')) j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

/**
 * `ValidFieldPath`: a rule's fieldPath (`.spec.replicas`, `.spec.labels['x.y']`) as the field path errors
 * are reported at (`spec.replicas`, `spec.labels[x.y]`), or the reason it does not name a field of `schema`.
 */
export function validFieldPath(jsonPath: string, schema: JSONSchemaProps): string | Error {
  let path = '';
  let s: JSONSchemaProps | undefined = schema;
  const append = (name: string, named: boolean): Error | undefined => {
    if (!named) {
      path = `${path}[${name}]`;
      s = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
      return undefined;
    }
    path = path === '' ? name : `${path}.${name}`;
    const next: JSONSchemaProps | undefined = s?.properties?.[name];
    if (next === undefined) return new Error('does not refer to a valid field');
    s = next;
    return undefined;
  };
  const named = (): boolean | Error => {
    if (s?.properties !== undefined) return true;
    if (s?.additionalProperties !== undefined) return false;
    return new Error('does not refer to a valid field');
  };
  const toks = fieldPathTokens(jsonPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i] ?? '';
    if (tok === '[') {
      const q = toks[++i];
      if (q === undefined) return new Error('unexpected end of JSON path');
      if (q.length < 2 || !q.startsWith("'") || !q.endsWith("'")) return new Error(`expected single quoted string but got ${q}`);
      const unescaped = unescapeSingleQuote(q.slice(1, -1));
      if (unescaped instanceof Error) return new Error(`invalid string literal: ${unescaped.message}`);
      const n = named();
      if (n instanceof Error) return n;
      const err = append(unescaped, n);
      if (err !== undefined) return err;
      const close = toks[++i];
      if (close === undefined) return new Error('unexpected end of JSON path');
      if (close !== ']') return new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) return new Error('unexpected end of JSON path');
      const n = named();
      if (n instanceof Error) return n;
      const err = append(name, n);
      if (err !== undefined) return err;
    } else {
      return new Error(`expected [ or . but got: ${tok}`);
    }
  }
  return path;
}
