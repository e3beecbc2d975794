/**
 * The string formats custom resource validation checks: the ones apiextensions-apiserver 1.32 keeps in a
 * CRD schema (`pkg/apiserver/validation/formats.go`; any other format is dropped before validating), each
 * with the check of kube-openapi's `strfmt.Default` registry (`pkg/validation/strfmt`, which takes most of
 * them from govalidator and Go's net, mail and time packages).
 */
import { parseIPSloppy, parseIPv4 } from '../validation/_names.js';

/** The name kube-openapi's registry looks a format up by: dashes dropped (`date-time` is `datetime`). */
function normalized(format: string): string {
  return format.replaceAll('-', '');
}

/**
 * The format a CRD schema node keeps after `StripUnsupportedFormatsPostProcess`: string formats of the
 * supported list, `int32`/`int64` on integers, `float`/`double` on numbers, nothing on other types.
 * `schemaType` is '' for an untyped node and for `x-kubernetes-int-or-string`.
 */
export function supportedFormat(format: string | undefined, schemaType: string): string {
  if (format === undefined || format === '') return '';
  switch (schemaType) {
    case '':
    case 'string':
      return Object.hasOwn(checks, normalized(format)) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}

/** Whether kube-openapi's registry checks strings of this format (the format validator applies). */
export function isKnownFormat(format: string): boolean {
  return format !== '' && Object.hasOwn(checks, normalized(format));
}

/** `strfmt.Default.Validates(format, s)`. */
export function validatesFormat(format: string, s: string): boolean {
  const check = checks[normalized(format)];
  return check === undefined ? true : check(s);
}

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostname =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const dateTimeTail = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const rgbComponent = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const rgbColor = new RegExp(`^rgb\\(${rgbComponent},${rgbComponent},${rgbComponent}\\)$`);
const creditCard =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;

/** `strfmt.IsHostname`: the pattern, at most 255 bytes, labels of at most 63. */
function isHostname(s: string): boolean {
  if (!hostname.test(s)) return false;
  if (Buffer.byteLength(s) > 255) return false;
  return s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

/** Go `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, the day within its month. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ?? 31;
  return d <= days;
}

/** `strfmt.IsDateTime`: a date, a `t`, then the time (compared as strings against 23, 59, 59, as upstream does). */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = dateTimeTail.exec(parts[1] ?? '');
  if (m === null) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

/** Go `time.ParseDuration`: `[-+]` then one or more `<decimal><unit>`, or a bare `0`. */
function isGoDuration(s: string): boolean {
  const rest = s.replace(/^[-+]/, '');
  if (rest === '0') return true;
  return rest !== '' && /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.test(rest);
}

const timeUnits = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];

/** `strfmt.ParseDuration`: Go's syntax, or scala's (`3 days`, `1 hr 5 min`). */
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  if (!/^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$/.test(s)) return false;
  for (const m of s.matchAll(/((\d+)\s*([A-Za-zµ]+))/g)) {
    const unit = (m[3] ?? '').trim().toLowerCase();
    for (const variants of timeUnits) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v.toLowerCase() === unit)) return true;
    }
  }
  return false;
}

/** Go `net.ParseIP` of an IPv6 address (one with a colon before any dot). */
function isIPv6(s: string): boolean {
  const firstSep = /[.:]/.exec(s)?.[0];
  return firstSep === ':' && parseIPSloppy(s) !== undefined;
}

/** Go `net.ParseIP`: strict dotted IPv4 (no leading zeros) or IPv6. */
function parsesAsIP(s: string): boolean {
  return parseIPv4(s) !== undefined || isIPv6(s);
}

/** Go `net.ParseCIDR`. */
function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const prefix = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix) || (prefix.length > 1 && prefix.startsWith('0'))) return false;
  const bits = parseIPv4(addr) !== undefined ? 32 : isIPv6(addr) ? 128 : -1;
  return bits > 0 && Number(prefix) <= bits;
}

/** Go `net.ParseMAC`: 6, 8 or 20 bytes as `xx:xx:..`, `xx-xx-..` or `xxxx.xxxx...`. */
function isMAC(s: string): boolean {
  const byColon = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})*$/.test(s) || /^[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2})*$/.test(s);
  if (byColon) return [6, 8, 20].includes((s.length + 1) / 3);
  if (/^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4})*$/.test(s)) return [6, 8, 20].includes(((s.length + 1) / 5) * 2);
  return false;
}

/** govalidator `IsRequestURI` (Go `url.ParseRequestURI`): an absolute URI or an absolute path, valid escapes. */
function isRequestURI(s: string): boolean {
  if (/\s/.test(s) || [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return false;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith('/');
}

/** Go `mail.ParseAddress` (approximately): `local@domain`, optionally as `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const angle = /^[^<>]*<([^<>]+)>\s*$/.exec(s);
  const addr = (angle?.[1] ?? s).trim();
  return /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+$/.test(addr) && !addr.startsWith('.') && !addr.includes('..');
}

function isISBN10(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === 'X' ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(v)) return false;
  const factor = [1, 3];
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (factor[i % 2] ?? 1) * Number(v[i]);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

/** govalidator `IsCreditCard`: digits (separators dropped) of a known issuer, passing Luhn. */
function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  if (!creditCard.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const checks: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => parsesAsIP(s) && s.includes('.'),
  ipv6: (s) => parsesAsIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => uuid.test(s),
  uuid3: (s) => uuid3.test(s),
  uuid4: (s) => uuid4.test(s),
  uuid5: (s) => uuid5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rgbColor.test(s),
  byte: (s) => base64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};
