/**
 * Go `%#v` renderings of the internal API structs upstream puts in field errors as bad values, so that
 * messages read as kube-apiserver prints them (`core.Toleration{Key:"foo", ...}`). Pointers print as
 * `(*int64)(nil)` when unset; a set pointer prints as an address in Go, which we cannot reproduce, so we
 * print the pointed-to value instead.
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { ServicePort, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { GoValue, goQuote } from '../../api/field-errors.js';

export function goStringSlice(values: readonly string[] | undefined): GoValue {
  if (values === undefined) return new GoValue('[]string(nil)');
  return new GoValue(`[]string{${values.map(goQuote).join(', ')}}`);
}

function goStringMapRepr(m: Record<string, string> | undefined): string {
  if (m === undefined) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k] ?? '')}`).join(', ')}}`;
}

function goInt64Ptr(v: number | undefined): string {
  return v === undefined ? '(*int64)(nil)' : `(*int64)(${v})`;
}

/** `core.Toleration` as `%#v`. */
export function goToleration(t: Toleration): GoValue {
  return new GoValue(
    `core.Toleration{Key:${goQuote(t.key ?? '')}, Operator:${goQuote(t.operator ?? '')}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect ?? '')}, TolerationSeconds:${goInt64Ptr(t.tolerationSeconds)}}`,
  );
}

/** `core.Taint` as `%#v`. */
export function goTaint(t: Taint): GoValue {
  const added = t.timeAdded === undefined ? '(*v1.Time)(nil)' : `time.Date(${t.timeAdded})`;
  return new GoValue(`core.Taint{Key:${goQuote(t.key)}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect)}, TimeAdded:${added}}`);
}

/** `intstr.IntOrString` as `%#v`. */
export function goIntOrString(v: number | string | undefined): GoValue {
  if (typeof v === 'string') return new GoValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`);
  return new GoValue(`intstr.IntOrString{Type:0, IntVal:${v ?? 0}, StrVal:""}`);
}

/** `*metav1.LabelSelector` / `metav1.LabelSelector` as `%#v` (`field is immutable` prints the value form). */
export function goLabelSelector(s: LabelSelector | undefined, pointer = false): GoValue {
  if (s === undefined) return new GoValue('(*v1.LabelSelector)(nil)');
  const exprs =
    s.matchExpressions === undefined
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${s.matchExpressions
          .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(e.key)}, Operator:${goQuote(e.operator)}, Values:${goStringSlice(e.values).repr}}`)
          .join(', ')}}`;
  return new GoValue(`${pointer ? '&' : ''}v1.LabelSelector{MatchLabels:${goStringMapRepr(s.matchLabels)}, MatchExpressions:${exprs}}`);
}

/** `core.ServicePort` as `%#v` (used for duplicate-port errors). */
export function goServicePort(p: Pick<ServicePort, 'protocol' | 'port'> & Partial<ServicePort>): GoValue {
  const app = p.appProtocol === undefined ? '(*string)(nil)' : `(*string)(${goQuote(p.appProtocol)})`;
  return new GoValue(
    `core.ServicePort{Name:${goQuote(p.name ?? '')}, Protocol:${goQuote(p.protocol ?? '')}, AppProtocol:${app}, Port:${p.port}, TargetPort:${goIntOrString(p.targetPort).repr}, NodePort:${p.nodePort ?? 0}}`,
  );
}

/** A `*int32`/`*int64` pointer field value (`%#v` of a pointer prints an address; we print the value). */
export function goIntPtr(v: number | undefined, bits: 32 | 64 = 64): GoValue | number {
  return v === undefined ? new GoValue(`(*int${bits})(nil)`) : v;
}
