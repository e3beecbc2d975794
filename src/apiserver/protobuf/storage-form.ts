/**
 * What a built-in object's lists, maps and scalars read back as once kube-apiserver has stored it. Storage
 * holds built-in kinds as protobuf, where an empty list (or map) and none are the same thing; reading
 * decodes that into the Go struct, whose JSON encoding then writes
 * - a nil slice or map without `omitempty` as `null`: a Role created with `rules: []` (or with no rules)
 *   reads `rules: null`, a CSINode's `drivers: []` reads `drivers: null`, an EndpointSlice with no
 *   endpoints `endpoints: null`;
 * - a nil slice or map with `omitempty` (most of them) not at all: `env: []`, `ports: []`, `labels: {}`,
 *   `data: {}` vanish;
 * - a zero scalar with `omitempty` (not a pointer) not at all: `hostNetwork: false`, `readOnly: false`,
 *   `subPath: ""`, `initialDelaySeconds: 0` vanish, while a pointer's `privileged: false` stays.
 * The Go facts come from the protobuf schema (`k8s-1.32.ts`: flags `s`/`m`/`p`, with or without `o`).
 *
 * Only objects that are present are looked into: a missing struct stays missing (what Go writes for a
 * zero struct is another matter). Custom resources are stored as JSON and keep their empty lists.
 */
import { fieldInfo, type FieldInfo } from './decode.js';
import { k8sSchema } from './schema/k8s-1.32.js';
import type { ProtoSchema } from './schema/types.js';

/** Where in one message a field can read back otherwise: its own fields, and the fields leading to others. */
interface Plan {
  /** JSON names of slice and map fields without `omitempty`: empty or absent reads `null`. */
  readonly nulls: readonly string[];
  /** JSON names of slice and map fields with `omitempty`: empty reads absent. */
  readonly drops: readonly string[];
  /** JSON names of scalar fields (not pointers) with `omitempty`: `false`, `0` or `""` reads absent. */
  readonly zeros: readonly string[];
  /** Fields whose values hold such fields further down. */
  readonly nested: readonly Nested[];
}

interface Nested {
  readonly json: string;
  /** `one`: a struct; `each`: a list of structs; `values`: a map to structs; `inline`: fields of this object. */
  readonly shape: 'one' | 'each' | 'values' | 'inline';
  readonly plan: Plan;
}

function isSliceOrMap(f: FieldInfo): boolean {
  return (f.goKind === 'slice' || f.goKind === 'map') && f.json !== '-';
}

function isOmittedZero(f: FieldInfo): boolean {
  return f.goKind === 'value' && !f.isMessage && f.map === undefined && f.omitEmpty && f.json !== '-';
}

/** The message a field's value (or its elements, or its map values) is, if any. */
function messageOf(f: FieldInfo): string | undefined {
  if (f.map !== undefined) return f.map.valueIsMessage ? f.map.value : undefined;
  return f.isMessage ? f.type : undefined;
}

/** The plans of every message that can hold a slice, a map or an omitempty scalar, keyed by message name. */
function buildPlans(schema: ProtoSchema): Map<string, Plan> {
  const fields = new Map<string, FieldInfo[]>();
  for (const [name, tuples] of Object.entries(schema.messages)) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    fields.set(name, tuples.map((t) => fieldInfo(t, pkg)));
  }
  // Which messages hold one, directly or through their fields: grown until nothing changes (types recurse).
  const holds = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, fs] of fields) {
      if (holds.has(name)) continue;
      if (fs.some((f) => isSliceOrMap(f) || isOmittedZero(f) || holds.has(messageOf(f) ?? ''))) {
        holds.add(name);
        grew = true;
      }
    }
  }
  const plans = new Map<string, { nulls: string[]; drops: string[]; zeros: string[]; nested: Nested[] }>();
  for (const name of holds) plans.set(name, { nulls: [], drops: [], zeros: [], nested: [] });
  for (const [name, plan] of plans) {
    for (const f of fields.get(name) ?? []) {
      if (isSliceOrMap(f)) (f.omitEmpty ? plan.drops : plan.nulls).push(f.json);
      if (isOmittedZero(f)) plan.zeros.push(f.json);
      const inner = plans.get(messageOf(f) ?? '');
      if (inner === undefined) continue;
      const shape = f.inline ? 'inline' : f.map !== undefined ? 'values' : f.repeated ? 'each' : 'one';
      plan.nested.push({ json: f.json, shape, plan: inner });
    }
  }
  return plans;
}

const plans = buildPlans(k8sSchema);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A nil or empty Go slice or map in JSON: none, `null`, `[]`, `{}`, or `""` (a `[]byte` is base64 text). */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  return Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;
}

function apply(plan: Plan, obj: Record<string, unknown>): void {
  for (const k of plan.nulls) if (isEmpty(obj[k])) obj[k] = null;
  for (const k of plan.drops) if (k in obj && isEmpty(obj[k])) delete obj[k];
  for (const k of plan.zeros) {
    const v = obj[k];
    if (v === false || v === 0 || v === '' || v === null) delete obj[k];
  }
  for (const n of plan.nested) {
    if (n.shape === 'inline') {
      apply(n.plan, obj);
      continue;
    }
    const v = obj[n.json];
    if (n.shape === 'one') {
      if (isObject(v)) apply(n.plan, v);
    } else if (n.shape === 'each') {
      if (Array.isArray(v)) for (const x of v) if (isObject(x)) apply(n.plan, x);
    } else if (isObject(v)) {
      for (const x of Object.values(v)) if (isObject(x)) apply(n.plan, x);
    }
  }
}

/**
 * Gives the lists, maps and scalars of `obj` (a built-in kind in its storage version, with apiVersion and
 * kind set) the form they read back with from storage. Objects of kinds the schema does not know are left alone.
 */
export function asStoredSlices(obj: { apiVersion?: unknown; kind?: unknown }): void {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return;
  const message = k8sSchema.kinds[obj.apiVersion]?.[obj.kind];
  const plan = message === undefined ? undefined : plans.get(message);
  if (plan !== undefined) apply(plan, obj);
}
