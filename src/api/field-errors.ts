/**
 * Field errors as apimachinery's `field.Error` / `field.ErrorList`: validation collects them with a path,
 * and `ErrorBody()`/`Error()` render them exactly as kube-apiserver does.
 */

export const FieldErrorType = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Internal: 'InternalError',
  TypeInvalid: 'FieldValueTypeInvalid',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** A value printed verbatim where Go would use `%#v` (e.g. `map[string]string{"app":"x"}`). */
export class GoValue {
  constructor(readonly repr: string) {}
}

/** Go's `%#v` of a `map[string]string`, keys sorted as fmt prints maps. */
export function goStringMap(m: Record<string, string> | undefined): GoValue {
  const keys = Object.keys(m ?? {}).sort();
  return new GoValue(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m?.[k] ?? '')}`).join(', ')}}`);
}

/** Go's `%q` for a string (close enough: Go and JSON agree for printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Marker for errors whose bad value is not printed (field.OmitValueType). */
export const omitValue: unique symbol = Symbol('omitValue');

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly badValue: unknown;
  readonly detail: string;
}

/** `field.Error.ErrorBody()`: the message without the field path. */
export function errorBody(e: FieldError): string {
  let s: string;
  const text = typeText[e.type];
  if (
    e.type === FieldErrorType.Required ||
    e.type === FieldErrorType.Forbidden ||
    e.type === FieldErrorType.TooLong ||
    e.type === FieldErrorType.Internal ||
    e.badValue === omitValue
  ) {
    s = text;
  } else {
    s = `${text}: ${formatBadValue(e.badValue)}`;
  }
  if (e.detail.length > 0) s += `: ${e.detail}`;
  return s;
}

function formatBadValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof GoValue) return v.repr;
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** `field.Error.Error()`: `<path>: <body>`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** `utilerrors.NewAggregate(errs).Error()`: one message alone, several in brackets, duplicates dropped. */
export function aggregateMessage(errs: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errs) {
    const m = fieldErrorString(e);
    if (!seen.has(m)) {
      seen.add(m);
      msgs.push(m);
    }
  }
  if (msgs.length === 1) return msgs[0] ?? '';
  return `[${msgs.join(', ')}]`;
}

/** A field path builder (`field.NewPath("spec").Child("containers").Index(0)`). */
export class Path {
  private constructor(private readonly text: string) {}
  /** `field.NewPath(name)`; an empty root prints as `[]`, as Go's Path.String() does. */
  static root(name: string): Path {
    return new Path(name === '' ? '[]' : name);
  }
  child(name: string, ...more: string[]): Path {
    let t = this.text.length > 0 ? `${this.text}.${name}` : name;
    for (const m of more) t += `.${m}`;
    return new Path(t);
  }
  index(i: number): Path {
    return new Path(`${this.text}[${i}]`);
  }
  key(k: string): Path {
    return new Path(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

function make(type: FieldErrorType, path: Path | string, badValue: unknown, detail: string): FieldError {
  return { type, field: String(path), badValue, detail };
}

export const fieldErrors = {
  required: (p: Path | string, detail = ''): FieldError => make(FieldErrorType.Required, p, '', detail),
  invalid: (p: Path | string, value: unknown, detail = ''): FieldError => make(FieldErrorType.Invalid, p, value, detail),
  forbidden: (p: Path | string, detail = ''): FieldError => make(FieldErrorType.Forbidden, p, '', detail),
  duplicate: (p: Path | string, value: unknown): FieldError => make(FieldErrorType.Duplicate, p, value, ''),
  notFound: (p: Path | string, value: unknown): FieldError => make(FieldErrorType.NotFound, p, value, ''),
  tooLong: (p: Path | string, value: unknown, maxLength: number): FieldError =>
    make(FieldErrorType.TooLong, p, value, `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`),
  tooMany: (p: Path | string, actual: number, max: number): FieldError =>
    make(FieldErrorType.TooMany, p, actual, `must have at most ${max} ${max === 1 ? 'item' : 'items'}`),
  internal: (p: Path | string, detail: string): FieldError => make(FieldErrorType.Internal, p, '', detail),
  /** `field.NotSupported`: detail lists the quoted supported values. */
  notSupported: (p: Path | string, value: unknown, supported: readonly string[]): FieldError =>
    make(
      FieldErrorType.NotSupported,
      p,
      value,
      supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
    ),
};
