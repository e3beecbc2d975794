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

/** A `resource.Quantity` as the API server decoded it: its sign and its `%#v`. */
export interface GoQuantity {
  readonly sign: -1 | 0 | 1;
  readonly value: GoValue;
}

const decimalSuffixExponents: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixExponents: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const int64Max = (1n << 63n) - 1n;

function quantityRepr(value: bigint, scale: number, cached: string, format: string, dec = '(*inf.Dec)(nil)'): GoValue {
  return new GoValue(`resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:${dec}}, s:${goQuote(cached)}, Format:${goQuote(format)}}`);
}

/**
 * `resource.ParseQuantity` of a quantity's JSON text, rendered as `%#v` prints the struct (field errors
 * about quantities print it so: `Quantity.String` has a pointer receiver). Values that fit the int64 fast
 * path print exactly, including the cached string of canonical input; others are an `*inf.Dec` in Go,
 * whose address we cannot reproduce, so its decimal value is printed instead. Undefined when the text
 * does not parse (the decoder refuses such a body before validation).
 */
export function goQuantity(input: string | number): GoQuantity | undefined {
  const str = String(input).trim();
  if (str === '0') return { sign: 0, value: quantityRepr(0n, 0, str, 'DecimalSI') };
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (str === '' || m === null) return undefined;
  const positive = m[1] !== '-';
  const num = (m[2] ?? '') === '' ? '0' : (m[2] ?? '0');
  const denom = m[3] ?? '';
  const suffix = m[4] ?? '';
  if (!/^(?:[eEinumkKMGTP]*[-+]?\d*)$/.test(suffix)) return undefined;
  let exponent: number;
  let format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
  if (suffix in decimalSuffixExponents) [exponent, format] = [decimalSuffixExponents[suffix] ?? 0, 'DecimalSI'];
  else if (suffix in binarySuffixExponents) [exponent, format] = [binarySuffixExponents[suffix] ?? 0, 'BinarySI'];
  else if (/^[eE][-+]?\d+$/.test(suffix)) [exponent, format] = [Number(suffix.slice(1)), 'DecimalExponent'];
  else return undefined;
  const digits = BigInt(num + denom);
  const sign = digits === 0n ? 0 : positive ? 1 : -1;
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    const shifted = num + denom;
    if (scale >= -9 && digits <= int64Max && digits * mantissa <= int64Max) {
      const result = positive ? digits * mantissa : -(digits * mantissa);
      const canonical =
        format === 'BinarySI' ? exponent % 10 === 0 && (digits & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
      return { sign, value: quantityRepr(result, scale, canonical ? str : '', format) };
    }
  }
  // The inf.Dec path: the value with its suffix applied, rounded up to nano-units.
  const base = format === 'BinarySI' ? digits * (1n << BigInt(exponent)) : digits;
  const decimals = denom.length - (format === 'BinarySI' ? 0 : exponent);
  const text = decimalText(positive ? base : -base, decimals);
  const finalFormat = format === 'BinarySI' && decimals > 0 && base < 10n ** BigInt(decimals) && base > 0n ? 'DecimalSI' : format;
  return { sign, value: quantityRepr(0n, 0, '', finalFormat, `(*inf.Dec)(${text})`) };
}

function decimalText(unscaled: bigint, scale: number): string {
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/**
 * `policy.PodDisruptionBudgetSpec` as `%#v`. Its fields are pointers, which Go prints as addresses we
 * cannot reproduce; a set pointer prints its pointed-to value instead.
 */
export function goPodDisruptionBudgetSpec(spec: { minAvailable?: number | string; maxUnavailable?: number | string; selector?: LabelSelector; unhealthyPodEvictionPolicy?: string }): GoValue {
  const ios = (v: number | string | undefined): string => (v === undefined ? '(*intstr.IntOrString)(nil)' : `(*intstr.IntOrString)(${goIntOrString(v).repr})`);
  const sel = spec.selector === undefined ? '(*v1.LabelSelector)(nil)' : `(*v1.LabelSelector)(${goLabelSelector(spec.selector).repr})`;
  const policy = spec.unhealthyPodEvictionPolicy;
  const pol = policy === undefined ? '(*policy.UnhealthyPodEvictionPolicyType)(nil)' : `(*policy.UnhealthyPodEvictionPolicyType)(${goQuote(policy)})`;
  return new GoValue(`policy.PodDisruptionBudgetSpec{MinAvailable:${ios(spec.minAvailable)}, Selector:${sel}, MaxUnavailable:${ios(spec.maxUnavailable)}, UnhealthyPodEvictionPolicy:${pol}}`);
}
