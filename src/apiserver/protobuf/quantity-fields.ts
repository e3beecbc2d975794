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
import { schemaFields, valueMessage, valueShape } from './decode.js';
import { isObject } from '../patch/json.js';
import { k8sSchema } from './schema/k8s-1.32.js';
import type { ProtoSchema } from './schema/types.js';

const quantityMessage = 'k8s.io.apimachinery.pkg.api.resource.Quantity';

/** What a field holds (`valueShape`): quantities, or messages that hold quantities further down. */
type Step = { readonly shape: ReturnType<typeof valueShape>; readonly plan: QuantityPlan | undefined };

interface QuantityPlan {
  /** By JSON name; `plan` undefined means the field's values are quantities themselves. */
  readonly fields: ReadonlyMap<string, Step>;
  /** Plans of embedded (inline) messages, whose fields are the object's own. */
  readonly inline: readonly QuantityPlan[];
}

/** The plans of every message that holds a quantity, directly or through its fields, by message name. */
function buildPlans(schema: ProtoSchema): Map<string, QuantityPlan> {
  const fields = schemaFields(schema);
  // Grown until nothing changes (types recurse).
  const holds = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, fs] of fields) {
      if (holds.has(name)) continue;
      if (fs.some((f) => f.json !== '-' && (valueMessage(f) === quantityMessage || holds.has(valueMessage(f) ?? '')))) {
        holds.add(name);
        grew = true;
      }
    }
  }
  const plans = new Map<string, { fields: Map<string, Step>; inline: QuantityPlan[] }>();
  for (const name of holds) plans.set(name, { fields: new Map(), inline: [] });
  for (const [name, plan] of plans) {
    for (const f of fields.get(name) ?? []) {
      const type = valueMessage(f);
      if (f.json === '-' || type === undefined) continue;
      if (type === quantityMessage) plan.fields.set(f.json, { shape: valueShape(f), plan: undefined });
      const inner = plans.get(type);
      if (inner === undefined) continue;
      if (f.inline) plan.inline.push(inner);
      else plan.fields.set(f.json, { shape: valueShape(f), plan: inner });
    }
  }
  return plans;
}

const plans = buildPlans(k8sSchema);

/** Receives each quantity: its holder (an object, or the list of a list of quantities), key and value. */
export type QuantityVisitor = (holder: Record<string, unknown>, key: string, value: unknown) => void;

function visitValues(step: Step, v: unknown, visit: QuantityVisitor, holder: Record<string, unknown>, key: string): void {
  const each = (x: unknown, h: Record<string, unknown>, k: string): void => {
    if (step.plan === undefined) visit(h, k, x);
    else if (isObject(x)) walk(step.plan, x, visit);
  };
  if (step.shape === 'one') each(v, holder, key);
  else if (step.shape === 'each') {
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) each(v[i], v as unknown as Record<string, unknown>, String(i));
  } else if (isObject(v)) {
    for (const k in v) each(v[k], v, k);
  }
}

function walk(plan: QuantityPlan, obj: Record<string, unknown>, visit: QuantityVisitor): void {
  for (const key in obj) {
    const step = plan.fields.get(key);
    const v = step === undefined ? undefined : obj[key];
    if (step !== undefined && v !== null && v !== undefined) visitValues(step, v, visit, obj, key);
  }
  for (const p of plan.inline) walk(p, obj, visit);
}

/**
 * Calls `visit` on every quantity (present and not null) an object of the given built-in kind holds, in
 * the object's order; nothing when the schema does not know the kind.
 */
export function visitQuantities(kind: { group: string; version: string; kind: string }, obj: unknown, visit: QuantityVisitor): void {
  const message = k8sSchema.kinds[kind.group === '' ? kind.version : `${kind.group}/${kind.version}`]?.[kind.kind];
  const plan = message === undefined ? undefined : plans.get(message);
  if (plan !== undefined && isObject(obj)) walk(plan, obj, visit);
}
