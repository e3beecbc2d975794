/**
 * Custom-resource data as CEL values (apiextensions-apiserver `schema/cel/values.go` `UnstructuredToVal` and
 * `model/escaping.go`): the schema decides each value's CEL type. Objects with properties become maps keyed
 * by the escaped property names (unescapable names are left out, as upstream's object type has no field for
 * them), `additionalProperties` objects maps keyed as sent, integers ints, numbers doubles, int-or-string an
 * int or a string, strings with a `date`/`date-time`/`duration`/`byte` format timestamps, durations and bytes;
 * the root and embedded resources expose only `apiVersion`, `kind`, `metadata.name` and
 * `metadata.generateName` of their type and object meta (`model.WithTypeAndObjectMeta`). Set and map lists
 * (`x-kubernetes-list-type`) compare without regard to order (cel-library.ts `setList`, `mapList`).
 */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { mapList, setList } from '../../cel/library.js';
import type { JSONSchemaProps } from '../crd-schema.js';

/** CEL's reserved words, which a property name is escaped from as `__{word}__` (`celReservedSymbols`). */
const celReservedSymbols = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import',
  'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * `model.Escape`: the CEL field name of a property, or undefined when it has none (a leading digit, or a
 * character other than letters, digits, `_`, `.`, `-` and `/`).
 */
export function escapePropertyName(name: string): string | undefined {
  if (name === '' || (name[0] ?? '') >= '0' && (name[0] ?? '') <= '9') return undefined;
  if (celReservedSymbols.has(name)) return `__${name}__`;
  let ok = true;
  const out = name.replace(/__|[-./]|[^a-zA-Z0-9_]/g, (m) => {
    switch (m) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? out : undefined;
}

/** `model.WithTypeAndObjectMeta`: the resource root's schema with apiVersion, kind and metadata's name/generateName. */
export function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  if (s.properties?.['kind'] !== undefined && s.properties['apiVersion'] !== undefined && s.properties['metadata']?.properties !== undefined) return s;
  return {
    ...s,
    properties: {
      ...s.properties,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

/** A conversion failure (upstream returns a `types.Err` value that fails the rule when touched). */
export class CelValueError extends Error {}

const timeEnv = celEnv();
const toTimestamp = plan(timeEnv, parse('timestamp(s)'));
const toDuration = plan(timeEnv, parse('duration(s)'));

function formatted(str: string, format: string | undefined): CelInput {
  switch (format) {
    case 'duration': {
      const d = toDuration({ s: str });
      if (isCelError(d)) throw new CelValueError(`Invalid duration ${str}: ${d.message}`);
      return d;
    }
    case 'date': {
      const t = /^\d{4}-\d{2}-\d{2}$/.test(str) ? toTimestamp({ s: `${str}T00:00:00Z` }) : undefined;
      if (t === undefined || isCelError(t)) throw new CelValueError(`Invalid date formatted string ${str}`);
      return t;
    }
    case 'date-time': {
      const t = toTimestamp({ s: str });
      if (isCelError(t)) throw new CelValueError(`Invalid date-time formatted string ${str}: ${t.message}`);
      return t;
    }
    case 'byte':
      return new Uint8Array(Buffer.from(str, 'base64'));
    default:
      return str;
  }
}

/** Unknown data kept by `x-kubernetes-preserve-unknown-fields`, as untyped CEL data. */
function untyped(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(untyped);
  return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, untyped(x)]));
}

function integer(v: unknown): bigint {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'bigint') return v;
  throw new CelValueError(`invalid data, expected int, got ${typeof v}`);
}

/**
 * `UnstructuredToVal`: `value` under `schema` as a CEL input. `resourceRoot` marks the custom resource's root,
 * whose type and object meta are typed as an embedded resource's are. Throws CelValueError for data the
 * schema does not describe.
 */
export function toCelValue(value: unknown, schema: JSONSchemaProps, resourceRoot = false): CelInput {
  if (value === null || value === undefined) {
    if (schema.nullable === true) return null;
    throw new CelValueError('invalid data, got null for schema with nullable=false');
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
    throw new CelValueError('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new CelValueError('invalid data, expected a map for the provided schema with type=object');
      const rec = value as Record<string, unknown>;
      const embedded = resourceRoot || schema['x-kubernetes-embedded-resource'] === true;
      if (embedded || schema.properties !== undefined) {
        const s = embedded ? withTypeAndObjectMeta(schema) : schema;
        const out = new Map<string, CelInput>();
        const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
        for (const [k, v] of Object.entries(rec)) {
          const p = s.properties?.[k];
          const name = escapePropertyName(k);
          // A null field reads as absent, as upstream's field getter treats it.
          if (v === undefined || v === null) continue;
          // Unknown fields kept by x-kubernetes-preserve-unknown-fields take part in equality (upstream cannot
          // select them; here they can be).
          if (p === undefined) {
            if (preserve) out.set(k, untyped(v));
            continue;
          }
          if (name !== undefined) out.set(name, toCelValue(v, p));
        }
        return out;
      }
      if (typeof schema.additionalProperties === 'object') {
        const addl = schema.additionalProperties;
        return new Map(Object.entries(rec).flatMap(([k, v]) => (v === null || v === undefined ? [] : [[k, toCelValue(v, addl)]])));
      }
      // An object that keeps unknown fields but declares none: its data, compared as a whole.
      if (schema['x-kubernetes-preserve-unknown-fields'] === true) return untyped(rec);
      throw new CelValueError('invalid object type, expected either Properties or AdditionalProperties with Allows=true and non-empty Schema');
    }
    case 'array': {
      if (!Array.isArray(value)) throw new CelValueError('invalid data, expected an array for the provided schema with type=array');
      const items = schema.items;
      if (items === undefined) throw new CelValueError('invalid array type, expected Items with a non-empty Schema');
      const elements = value.map((v) => toCelValue(v, items));
      const listType = schema['x-kubernetes-list-type'];
      if (listType === 'set') return setList(elements);
      if (listType === 'map') return mapList(elements, (schema['x-kubernetes-list-map-keys'] ?? []).map((k) => escapePropertyName(k) ?? k));
      return elements;
    }
    case 'string':
      if (typeof value !== 'string') throw new CelValueError(`invalid data, expected string, got ${typeof value}`);
      return formatted(value, schema.format);
    case 'number':
      if (typeof value !== 'number') throw new CelValueError(`invalid data, expected float, got ${typeof value}`);
      return value;
    case 'integer':
      return integer(value);
    case 'boolean':
      if (typeof value !== 'boolean') throw new CelValueError(`invalid data, expected bool, got ${typeof value}`);
      return value;
    default:
      if (schema['x-kubernetes-preserve-unknown-fields'] === true) return untyped(value);
      throw new CelValueError(
        `invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got ${schema.type ?? ''}`,
      );
  }
}
