/**
 * Where a built-in kind's objects hold `resource.Quantity` values, read from the protobuf schema
 * (`k8s-1.32.ts`): single quantities (`emptyDir.sizeLimit`, an HPA metric's `averageValue`, a downward
 * API `divisor`, a CSIStorageCapacity's `capacity`) and resource lists (`map<string, Quantity>`: requests,
 * limits, capacity, allocatable, quota `hard` and `used`, LimitRange items, pod overhead).
 *
 * kube-apiserver decodes exactly these fields with Quantity's own decoder, which refuses a malformed
 * quantity and writes a valid one back in canonical form; every other field keeps its text, however much
 * it looks like a quantity (a ConfigMap key named `sizeLimit`, an annotation). The walk visits only the
 * paths that lead to quantities, not the whole object (its metadata and managedFields included).
 */
import { fieldInfo, type FieldInfo } from './decode.js';
import { k8sSchema } from './schema/k8s-1.32.js';
import type { ProtoSchema } from './schema/types.js';

const quantityMessage = 'k8s.io.apimachinery.pkg.api.resource.Quantity';

/** `one`: the value itself; `each`: every element of a list; `values`: every value of a map. */
type Shape = 'one' | 'each' | 'values';

/** What a field holds: quantities, or messages that hold quantities further down. */
type Step = { readonly shape: Shape; readonly plan: QuantityPlan | undefined };

interface QuantityPlan {
  /** By JSON name; `plan` undefined means the field's values are quantities themselves. */
  readonly fields: ReadonlyMap<string, Step>;
  /** Plans of embedded (inline) messages, whose fields are the object's own. */
  readonly inline: readonly QuantityPlan[];
}

function valueType(f: FieldInfo): string | undefined {
  if (f.map !== undefined) return f.map.valueIsMessage ? f.map.value : undefined;
  return f.isMessage ? f.type : undefined;
}

function shapeOf(f: FieldInfo): Shape {
  return f.map !== undefined ? 'values' : f.repeated ? 'each' : 'one';
}

/** The plans of every message that holds a quantity, directly or through its fields, by message name. */
function buildPlans(schema: ProtoSchema): Map<string, QuantityPlan> {
  const fields = new Map<string, FieldInfo[]>();
  for (const [name, tuples] of Object.entries(schema.messages)) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    fields.set(name, tuples.map((t) => fieldInfo(t, pkg)));
  }
  // Grown until nothing changes (types recurse).
  const holds = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, fs] of fields) {
      if (holds.has(name)) continue;
      if (fs.some((f) => f.json !== '-' && (valueType(f) === quantityMessage || holds.has(valueType(f) ?? '')))) {
        holds.add(name);
        grew = true;
      }
    }
  }
  const plans = new Map<string, { fields: Map<string, Step>; inline: QuantityPlan[] }>();
  for (const name of holds) plans.set(name, { fields: new Map(), inline: [] });
  for (const [name, plan] of plans) {
    for (const f of fields.get(name) ?? []) {
      const type = valueType(f);
      if (f.json === '-' || type === undefined) continue;
      if (type === quantityMessage) plan.fields.set(f.json, { shape: shapeOf(f), plan: undefined });
      const inner = plans.get(type);
      if (inner === undefined) continue;
      if (f.inline) plan.inline.push(inner);
      else plan.fields.set(f.json, { shape: shapeOf(f), plan: inner });
    }
  }
  return plans;
}

const plans = buildPlans(k8sSchema);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Receives each quantity: its holder (an object, or the list of a list of quantities), key and value. */
export type QuantityVisitor = (holder: Record<string, unknown>, key: string, value: unknown) => void;

function visitValues(step: Step, v: unknown, visit: QuantityVisitor, holder: Record<string, unknown>, key: string): void {
  const each = (x: unknown, h: Record<string, unknown>, k: string): void => {
    if (step.plan === undefined) visit(h, k, x);
    else if (isRecord(x)) walk(step.plan, x, visit);
  };
  if (step.shape === 'one') each(v, holder, key);
  else if (step.shape === 'each') {
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) each(v[i], v as unknown as Record<string, unknown>, String(i));
  } else if (isRecord(v)) {
    for (const k in v) each(v[k], v, k);
  }
}

function walk(plan: QuantityPlan, obj: Record<string, unknown>, visit: QuantityVisitor): void {
  for (const key in obj) {
    const step = plan.fields.get(key);
    if (step !== undefined && obj[key] !== null && obj[key] !== undefined) visitValues(step, obj[key], visit, obj, key);
  }
  for (const p of plan.inline) walk(p, obj, visit);
}

/**
 * Calls `visit` on every quantity (present and not null) an object of the given built-in kind holds, in
 * the object's order. Answers false, visiting nothing, when the schema does not know the kind.
 */
export function visitQuantities(apiVersion: string, kind: string, obj: unknown, visit: QuantityVisitor): boolean {
  const message = k8sSchema.kinds[apiVersion]?.[kind];
  if (message === undefined) return false;
  const plan = plans.get(message);
  if (plan !== undefined && isRecord(obj)) walk(plan, obj, visit);
  return true;
}
