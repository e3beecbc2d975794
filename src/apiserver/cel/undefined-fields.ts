/**
 * The part of cel-go's type check that expressions most often fail: selecting a field that an object type
 * does not declare is `undefined field 'x'`. Types are followed through field selection, `[...]`, and the
 * variables of comprehension macros; where the type is not known (dyn, function results) nothing is checked.
 * CRD rules type their variables from the schema (src/apiserver/crd/cel/check.ts), admission policies from
 * upstream's declared AdmissionRequest and Namespace types: each passes its own `TypeModel`.
 */
import type { Expr } from './expr.js';

/** How one kind of declared type answers the walk's questions. */
export interface TypeModel<T> {
  /** The fields an object type declares, by CEL name; undefined when the type declares none to check. */
  fields(t: T): ReadonlyMap<string, T> | undefined;
  /** The type of `x[i]`, and of `x.f` on a type without declared fields (a map's values). */
  element(t: T): T | undefined;
  /** The type a comprehension's iteration variable takes over `t`. */
  iteration(t: T): T | undefined;
}

export interface UndefinedField {
  field: string;
  /** Offset of the selection in the expression (the `.`). */
  offset: number;
}

/** The fields `expr` selects that their object types do not declare; `vars` types the top-level variables. */
export function undefinedFields<T>(expr: Expr | undefined, positions: Readonly<Record<string, number>>, vars: ReadonlyMap<string, T>, model: TypeModel<T>): UndefinedField[] {
  const out: UndefinedField[] = [];
  const typeOf = (e: Expr | undefined, scope: ReadonlyMap<string, T | undefined>): T | undefined => {
    if (e === undefined) return undefined;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        return scope.has(k.value.name) ? scope.get(k.value.name) : vars.get(k.value.name);
      case 'selectExpr': {
        const operand = typeOf(k.value.operand, scope);
        if (operand === undefined) return undefined;
        const fields = model.fields(operand);
        if (fields === undefined) return model.element(operand);
        const f = fields.get(k.value.field);
        if (f === undefined) out.push({ field: k.value.field, offset: positions[String(e.id)] ?? 0 });
        return f;
      }
      case 'callExpr': {
        typeOf(k.value.target, scope);
        const args = k.value.args.map((a) => typeOf(a, scope));
        const indexed = args[0];
        return k.value.function === '_[_]' && k.value.target === undefined && indexed !== undefined ? model.element(indexed) : undefined;
      }
      case 'listExpr':
        for (const x of k.value.elements) typeOf(x, scope);
        return undefined;
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') typeOf(entry.keyKind.value, scope);
          typeOf(entry.value, scope);
        }
        return undefined;
      case 'comprehensionExpr': {
        const c = k.value;
        const range = typeOf(c.iterRange, scope);
        typeOf(c.accuInit, scope);
        const inner = new Map(scope);
        inner.set(c.iterVar, range === undefined ? undefined : model.iteration(range));
        inner.set(c.accuVar, undefined);
        typeOf(c.loopCondition, inner);
        typeOf(c.loopStep, inner);
        return typeOf(c.result, inner);
      }
      default:
        return undefined;
    }
  };
  typeOf(expr, new Map());
  return out;
}
