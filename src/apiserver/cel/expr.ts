/**
 * What every Kubernetes CEL expression shares, CRD rules and admission policies alike (k8s.io/apiserver
 * `pkg/cel`): the base environment (CEL's standard library and Kubernetes' libraries, library.ts), the
 * references an expression makes (for cel-go's `undeclared reference` check), and cel-go's wording of
 * compile issues and runtime errors where @bufbuild/cel's differs.
 */
import { celEnv, parse, type CelEnv } from '@bufbuild/cel';
import { kubernetesCelFunctions } from './library.js';

/** A parsed CEL expression node. */
export type Expr = ReturnType<typeof parse>['expr'];

/** The base environment: CEL's standard library and the Kubernetes CEL libraries (`environment.MustBaseEnvSet`). */
export function newBaseEnv(): CelEnv {
  return celEnv({ funcs: [...kubernetesCelFunctions] });
}

/** Identifiers CEL resolves to types (`type(x) == string`, `google.protobuf.Duration`). */
export const typeIdents = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn', 'google']);
/** Functions called with a namespace (`sets.contains(a, b)`), which parse as a call on an identifier. */
const namespaces = new Set(['optional', 'sets', 'strings', 'format', 'ip']);

export interface Reference {
  name: string;
  offset: number;
}

/** Walks the parsed expression: the identifiers it references outside comprehension variables. */
export function references(e: Expr | undefined, scope: ReadonlySet<string>, positions: Record<string, number>, out: Reference[]): void {
  if (e === undefined) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      if (!scope.has(k.value.name)) out.push({ name: k.value.name, offset: positions[String(e.id)] ?? 0 });
      return;
    case 'selectExpr':
      references(k.value.operand, scope, positions, out);
      return;
    case 'callExpr': {
      const t = k.value.target;
      if (!(t?.exprKind.case === 'identExpr' && namespaces.has(t.exprKind.value.name) && !scope.has(t.exprKind.value.name))) references(t, scope, positions, out);
      for (const a of k.value.args) references(a, scope, positions, out);
      return;
    }
    case 'listExpr':
      for (const a of k.value.elements) references(a, scope, positions, out);
      return;
    case 'structExpr':
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === 'mapKey') references(entry.keyKind.value, scope, positions, out);
        references(entry.value, scope, positions, out);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      references(c.iterRange, scope, positions, out);
      references(c.accuInit, scope, positions, out);
      const inner = new Set([...scope, c.iterVar, c.accuVar]);
      references(c.loopCondition, inner, positions, out);
      references(c.loopStep, inner, positions, out);
      references(c.result, inner, positions, out);
      return;
    }
    default:
      return;
  }
}

/** cel-go's issue text: `ERROR: <input>:line:col: msg`, the source line, and a caret under the column. */
export function celIssue(source: string, offset: number, msg: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${msg}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

/** The issue text of a parse failure, from @bufbuild/cel's `<input>:line:col: msg`. */
export function syntaxIssue(source: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const m = /^<input>:(\d+):(\d+): ([\s\S]*)$/.exec(msg);
  if (m === null) return `ERROR: <input>:1:1: Syntax error: ${msg}`;
  const lines = source.split('\n');
  const line = Number(m[1]);
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += (lines[i]?.length ?? 0) + 1;
  return celIssue(source, offset + Number(m[2]) - 1, `Syntax error: ${m[3] ?? ''}`);
}

/** Upstream's text for a runtime error (cel-go's wording where @bufbuild/cel's differs). */
export function runtimeErrorMessage(msg: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^field not found: (.*)$/.exec(msg)) !== null) return `no such key: ${m[1] ?? ''}`;
  if ((m = /^index (-?\d+) out of bounds/.exec(msg)) !== null) return `index out of bounds: ${m[1] ?? ''}`;
  if (/divide by zero/.test(msg)) return 'division by zero';
  if (/modulus by zero/.test(msg)) return 'modulus by zero';
  if (/overflow/.test(msg)) return 'integer overflow';
  if (/^found no matching overload|^unbound function|^no such overload|^type mismatch/.test(msg)) return 'no such overload';
  return msg;
}
