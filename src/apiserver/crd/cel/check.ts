/**
 * The part of cel-go's type check that a CRD rule most often fails (apiextensions-apiserver compiles each rule
 * against the DeclType of its schema node, `model.SchemaDeclType`): selecting a field an object type does not
 * declare — a misspelt property, `metadata.namespace` (only name and generateName are declared), or any field
 * of an object that only keeps unknown fields — is `undefined field 'x'`. Types are followed through field
 * selection, `[...]` on lists and maps, and the variables of comprehension macros; where the type is
 * dynamic (int-or-string, untyped values, function results) nothing is checked.
 */
import { parse } from '@bufbuild/cel';
import type { JSONSchemaProps } from '../crd-schema.js';
import { escapePropertyName, withTypeAndObjectMeta } from './values.js';

type Expr = ReturnType<typeof parse>['expr'];

/** A CEL type as the check knows it: a schema node (and whether it is a resource), or nothing known. */
interface Known {
  schema: JSONSchemaProps;
  resource: boolean;
}

export interface UndefinedField {
  field: string;
  /** Offset of the selection in the expression (the `.`). */
  offset: number;
}

/** The declared fields of an object type, by their CEL (escaped) names; undefined when the type is not an object. */
function declaredFields(t: Known): Map<string, Known> | undefined {
  const s = t.resource ? withTypeAndObjectMeta(t.schema) : t.schema;
  if (s['x-kubernetes-int-or-string'] === true || s.type !== 'object') return undefined;
  if (s.properties === undefined && !t.resource && typeof s.additionalProperties === 'object') return undefined;
  if (s.properties === undefined && !t.resource && s['x-kubernetes-preserve-unknown-fields'] !== true) return undefined;
  const out = new Map<string, Known>();
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const name = escapePropertyName(k);
    if (name !== undefined) out.set(name, { schema: p, resource: p['x-kubernetes-embedded-resource'] === true });
  }
  return out;
}

function elementOf(t: Known | undefined): Known | undefined {
  if (t === undefined) return undefined;
  const s = t.schema;
  if (s.type === 'array' && s.items !== undefined) return { schema: s.items, resource: s.items['x-kubernetes-embedded-resource'] === true };
  if (s.type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object') {
    return { schema: s.additionalProperties, resource: s.additionalProperties['x-kubernetes-embedded-resource'] === true };
  }
  return undefined;
}

/** What a comprehension's iteration variable ranges over: a list's items; a map's keys are strings. */
function iterationOf(t: Known | undefined): Known | undefined {
  if (t === undefined || t.schema.type !== 'array') return undefined;
  return elementOf(t);
}

/**
 * The fields `expr` selects that the schema does not declare. `vars` gives the types of `self` and `oldSelf`
 * (left out when `oldSelf` is an optional).
 */
export function undefinedFields(expr: Expr | undefined, positions: Readonly<Record<string, number>>, vars: ReadonlyMap<string, Known>): UndefinedField[] {
  const out: UndefinedField[] = [];
  const typeOf = (e: Expr | undefined, scope: ReadonlyMap<string, Known | undefined>): Known | undefined => {
    if (e === undefined) return undefined;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        return scope.has(k.value.name) ? scope.get(k.value.name) : vars.get(k.value.name);
      case 'selectExpr': {
        const operand = typeOf(k.value.operand, scope);
        if (operand === undefined) return undefined;
        const fields = declaredFields(operand);
        if (fields === undefined) return elementOf(operand);
        const f = fields.get(k.value.field);
        if (f === undefined) out.push({ field: k.value.field, offset: positions[String(e.id)] ?? 0 });
        return f;
      }
      case 'callExpr': {
        typeOf(k.value.target, scope);
        const args = k.value.args.map((a) => typeOf(a, scope));
        return k.value.function === '_[_]' && k.value.target === undefined ? elementOf(args[0]) : undefined;
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
        inner.set(c.iterVar, iterationOf(range));
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

export type { Known as CheckedType };
