/**
 * The part of cel-go's type check that a CRD rule most often fails (apiextensions-apiserver compiles each rule
 * against the DeclType of its schema node, `model.SchemaDeclType`): selecting a field an object type does not
 * declare — a misspelt property, `metadata.namespace` (only name and generateName are declared), or any field
 * of an object that only keeps unknown fields — is `undefined field 'x'`. Types are followed through field
 * selection, `[...]` on lists and maps, and the variables of comprehension macros; where the type is
 * dynamic (int-or-string, untyped values, function results) nothing is checked.
 */
import { undefinedFields, type Expr, type TypeModel, type UndefinedField } from '../../cel/index.js';
import type { JSONSchemaProps } from '../crd-schema.js';
import { escapePropertyName, withTypeAndObjectMeta } from './values.js';

/** A CEL type as the check knows it: a schema node (and whether it is a resource), or nothing known. */
interface Known {
  schema: JSONSchemaProps;
  resource: boolean;
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

function elementOf(t: Known): Known | undefined {
  const s = t.schema;
  if (s.type === 'array' && s.items !== undefined) return { schema: s.items, resource: s.items['x-kubernetes-embedded-resource'] === true };
  if (s.type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object') {
    return { schema: s.additionalProperties, resource: s.additionalProperties['x-kubernetes-embedded-resource'] === true };
  }
  return undefined;
}

/** What a comprehension's iteration variable ranges over: a list's items; a map's keys are strings. */
function iterationOf(t: Known): Known | undefined {
  if (t.schema.type !== 'array') return undefined;
  return elementOf(t);
}

/** Schema-typed values: object nodes declare their properties; lists and maps type their elements. */
const schemaTypes: TypeModel<Known> = { fields: declaredFields, element: elementOf, iteration: iterationOf };

/**
 * The fields `expr` selects that the schema does not declare. `vars` gives the types of `self` and `oldSelf`
 * (left out when `oldSelf` is an optional).
 */
export function schemaUndefinedFields(expr: Expr | undefined, positions: Readonly<Record<string, number>>, vars: ReadonlyMap<string, Known>): UndefinedField[] {
  return undefinedFields(expr, positions, vars, schemaTypes);
}

export type { Known as CheckedType };
