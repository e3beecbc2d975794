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
 *   `subPath: ""`, `initialDelaySeconds: 0` vanish, while a pointer's `privileged: false` stays;
 * - a field left out (or null) that Go writes even at its zero value as that zero value: a scalar without
 *   `omitempty` (an HPA's `desiredReplicas: 0`, an Event's `reportingComponent: ""`), a pointer without it
 *   as `null`, and a struct that is not a pointer, `omitempty` or not, as its own zero form (a Lease's
 *   `spec: {}`, an Ingress's `status: {loadBalancer: {}}`, a pod template's `metadata: {creationTimestamp: null}`).
 * The Go facts come from the protobuf schema (`k8s-1.32.ts`: flags `s`/`m`/`p`, with or without `o`).
 *
 * Custom resources are stored as JSON and keep their empty lists.
 */
import { isObject } from '../patch/json.js';
import { goZeroJson, isGoEmpty, schemaFields, valueMessage, valueShape, type FieldInfo } from './decode.js';
import { k8sSchema } from './schema/k8s-1.32.js';
import type { ProtoSchema } from './schema/types.js';

/**
 * Where in one message a field can read back otherwise: its own fields, and the fields leading to others.
 * Fields that matter only when present are looked up by the object's own keys (an object holds far fewer
 * than its message declares); those that matter when absent are listed.
 */
interface Plan {
  /** Slice and map fields without `omitempty`: empty or absent reads `null`. */
  readonly nulls: readonly FieldInfo[];
  /** The other fields Go writes at their zero value: absent or null reads as that value. */
  readonly zeros: readonly Zero[];
  /** By JSON name (one lookup per member), what a present field may need. */
  readonly present: ReadonlyMap<string, Present>;
  /** Plans of embedded (inline) messages, whose fields are this object's own. */
  readonly inline: readonly Plan[];
}

interface Present {
  /** A slice, map or scalar (not pointer) field with `omitempty`: empty or zero (`isGoEmpty`) reads absent. */
  readonly omit: FieldInfo | undefined;
  /** The field's value holds such fields further down. */
  readonly nested: Nested | undefined;
}

interface Zero {
  readonly json: string;
  /** The zero value: a scalar or null as it is, a struct's zero form as a fresh copy each time. */
  readonly make: () => unknown;
}

interface Nested {
  /** `one`: a struct; `each`: a list of structs; `values`: a map to structs. */
  readonly shape: 'one' | 'each' | 'values';
  readonly plan: Plan;
}

function isSliceOrMap(f: FieldInfo): boolean {
  return (f.goKind === 'slice' || f.goKind === 'map') && f.json !== '-';
}

function isScalar(f: FieldInfo): boolean {
  return f.goKind === 'value' && !f.isMessage && f.map === undefined && f.json !== '-';
}

/** A field Go's `omitempty` leaves out when empty or zero: not a pointer, not a struct. */
function isOmittable(f: FieldInfo): boolean {
  return f.omitEmpty && (isSliceOrMap(f) || isScalar(f));
}

/**
 * What a field that is neither a slice, a map nor omittable (those have their own rules) reads back as when
 * absent, if anything.
 */
function zeroOf(f: FieldInfo): Zero | undefined {
  if (f.inline || f.json === '-' || isOmittable(f) || isSliceOrMap(f)) return undefined;
  const zero = goZeroJson(f);
  if (zero === undefined) return undefined;
  const { value } = zero;
  if (!isObject(value)) return { json: f.json, make: () => value };
  const text = JSON.stringify(value);
  return { json: f.json, make: () => JSON.parse(text) as unknown };
}

/** The plans of every message that can hold a slice, a map, an omittable scalar or a written zero, keyed by message name. */
function buildPlans(schema: ProtoSchema): Map<string, Plan> {
  const fields = schemaFields(schema);
  const zeros = new Map<FieldInfo, Zero>();
  for (const fs of fields.values()) {
    for (const f of fs) {
      const zero = zeroOf(f);
      if (zero !== undefined) zeros.set(f, zero);
    }
  }
  // Which messages hold one, directly or through their fields: grown until nothing changes (types recurse).
  const holds = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, fs] of fields) {
      if (holds.has(name)) continue;
      if (fs.some((f) => isSliceOrMap(f) || isOmittable(f) || zeros.has(f) || holds.has(valueMessage(f) ?? ''))) {
        holds.add(name);
        grew = true;
      }
    }
  }
  const plans = new Map<string, { nulls: FieldInfo[]; zeros: Zero[]; present: Map<string, Present>; inline: Plan[] }>();
  for (const name of holds) plans.set(name, { nulls: [], zeros: [], present: new Map(), inline: [] });
  for (const [name, plan] of plans) {
    for (const f of fields.get(name) ?? []) {
      const zero = zeros.get(f);
      const omit = isOmittable(f) ? f : undefined;
      if (omit === undefined && isSliceOrMap(f)) plan.nulls.push(f);
      else if (omit === undefined && zero !== undefined) plan.zeros.push(zero);
      const inner = plans.get(valueMessage(f) ?? '');
      if (inner !== undefined && f.inline) plan.inline.push(inner);
      const nested: Nested | undefined = inner === undefined || f.inline ? undefined : { shape: valueShape(f), plan: inner };
      if (omit !== undefined || nested !== undefined) plan.present.set(f.json, { omit, nested });
    }
  }
  return plans;
}

const plans = buildPlans(k8sSchema);

function apply(plan: Plan, obj: Record<string, unknown>): void {
  for (const f of plan.nulls) {
    const v = obj[f.json];
    if (v === undefined || isGoEmpty(f, v)) obj[f.json] = null;
  }
  for (const z of plan.zeros) {
    // JSON null decodes to the zero value too (a struct's fields stay zero, a pointer stays nil).
    const v = obj[z.json];
    if (v === undefined || v === null) obj[z.json] = z.make();
  }
  // Deleting the member being visited is safe in `for...in`; members added above are visited too.
  for (const key in obj) {
    const p = plan.present.get(key);
    if (p === undefined) continue;
    const v = obj[key];
    // JSON null decodes to a scalar's zero as well.
    if (p.omit !== undefined && (v === null || isGoEmpty(p.omit, v))) {
      delete obj[key];
      continue;
    }
    const n = p.nested;
    if (n === undefined) continue;
    if (n.shape === 'one') {
      if (isObject(v)) apply(n.plan, v);
    } else if (n.shape === 'each') {
      if (Array.isArray(v)) for (const x of v) if (isObject(x)) apply(n.plan, x);
    } else if (isObject(v)) {
      for (const x of Object.values(v)) if (isObject(x)) apply(n.plan, x);
    }
  }
  for (const p of plan.inline) apply(p, obj);
}

/**
 * Gives the lists, maps and scalars of `obj` (a built-in kind in its storage version, with apiVersion and
 * kind set) the form they read back with from storage. Objects of kinds the schema does not know are left alone.
 */
export function asStoredForm(obj: { apiVersion?: unknown; kind?: unknown }): void {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return;
  const message = k8sSchema.kinds[obj.apiVersion]?.[obj.kind];
  const plan = message === undefined ? undefined : plans.get(message);
  if (plan !== undefined) apply(plan, obj);
}
