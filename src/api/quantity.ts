/**
 * `resource.Quantity`: parsing, exact comparison, and the canonical form the API server writes back
 * (`.1` -> `100m`, `1.5Gi` -> `1536Mi`). Values are held exactly as nano-units in a bigint; finer precision
 * rounds up, as apimachinery does when it canonicalises.
 */
import { Memo } from '../util/memo.js';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value times 10^9, rounded up. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const NANO = 1_000_000_000n;

const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const quantityPattern = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

export class QuantityParseError extends Error {
  constructor(readonly input: string) {
    super('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/**
 * Quantities already parsed, by their text. A cluster's objects repeat a few strings (`100m`, `128Mi`, a
 * node's allocatable) and every pod's requests are read again by each component for each version of the
 * pod, so most parses are repeats; a Quantity is immutable and can be shared. Cleared when full.
 */
const maxParsed = 4096;
const parsed = new Memo<Quantity>(maxParsed);

/** Parses a quantity string; throws `QuantityParseError` on a malformed one (the API's message). */
export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? String(input) : input;
  return parsed.get(text, () => Object.freeze(parseText(text.trim())));
}

function parseText(s: string): Quantity {
  const m = quantityPattern.exec(s);
  if (m === null) throw new QuantityParseError(s);
  const sign = m[1] === '-' ? -1n : 1n;
  const digits = m[2] ?? '0';
  const suffix = m[3] ?? '';
  const [intPart = '0', fracPart = ''] = digits.split('.');
  // value = (intPart.fracPart) * multiplier; as a fraction: mantissa / 10^fracLen
  const mantissa = BigInt((intPart === '' ? '0' : intPart) + fracPart);
  let num = mantissa * NANO;
  let den = 10n ** BigInt(fracPart.length);
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in binarySuffixes) {
    num *= 1n << BigInt(binarySuffixes[suffix] ?? 0);
    format = 'BinarySI';
  } else if (suffix.startsWith('e') || suffix.startsWith('E')) {
    const exp = Number(suffix.slice(1));
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
    format = 'DecimalExponent';
  } else {
    const exp = decimalSuffixes[suffix] ?? 0;
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  return { nanos: sign * ceilDiv(num, den), format };
}

/** True when the string parses as a quantity. */
export function isQuantity(input: string): boolean {
  return quantityPattern.test(input.trim());
}

/** `Quantity.Value()`: the integer value, rounded up. */
export function quantityValue(q: Quantity): number {
  return Number(ceilDiv(q.nanos, NANO));
}

/** `Quantity.MilliValue()`: the value in thousandths, rounded up. */
export function quantityMilliValue(q: Quantity): number {
  return Number(ceilDiv(q.nanos, 1_000_000n));
}

export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.format };
}

const decimalByExponent: [number, string][] = [
  [18, 'E'], [15, 'P'], [12, 'T'], [9, 'G'], [6, 'M'], [3, 'k'], [0, ''], [-3, 'm'], [-6, 'u'], [-9, 'n'],
];

function formatDecimal(nanos: bigint, exponentForm: boolean): string {
  if (nanos === 0n) return '0';
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  for (const [exp, suffix] of decimalByExponent) {
    const unit = 10n ** BigInt(exp + 9);
    if (abs % unit === 0n) {
      const mant = (abs / unit).toString();
      const sfx = exponentForm ? (exp === 0 ? '' : `e${exp}`) : suffix;
      return `${neg ? '-' : ''}${mant}${sfx}`;
    }
  }
  return `${neg ? '-' : ''}${abs.toString()}n`;
}

/** The canonical string (`Quantity.String()`). */
export function formatQuantity(q: Quantity): string {
  if (q.format === 'BinarySI') {
    const abs = q.nanos < 0n ? -q.nanos : q.nanos;
    if (abs % NANO !== 0n || abs < 1024n * NANO) return formatDecimal(q.nanos, false);
    const value = q.nanos / NANO;
    for (const [suffix, shift] of Object.entries(binarySuffixes).reverse()) {
      const unit = 1n << BigInt(shift);
      if (value % unit === 0n) return `${(value / unit).toString()}${suffix}`;
    }
    return value.toString();
  }
  return formatDecimal(q.nanos, q.format === 'DecimalExponent');
}

/**
 * Canonical texts already written, by the text they came from: formatting goes through BigInt arithmetic
 * (about a microsecond), and the API server writes every quantity of an object again at each update of it
 * (a node's capacity and allocatable at each status write). Cleared when full.
 */
const canonicalTexts = new Memo<string>(maxParsed);

/** Parses and re-formats: what the API server stores for a quantity field. */
export function canonicalQuantity(input: string | number): string {
  const text = typeof input === 'number' ? String(input) : input;
  return canonicalTexts.get(text, () => formatQuantity(parseQuantity(text)));
}

export function quantityFromMilli(milli: number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos: BigInt(Math.round(milli)) * 1_000_000n, format };
}

export function quantityFromValue(value: number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos: BigInt(Math.round(value)) * NANO, format };
}
