/**
 * The IP and CIDR CEL libraries (k8s.io/apiserver `pkg/cel/library/ip.go` and `cidr.go`, in the base
 * environment since 1.30): `ip()`, `isIP()`, `ip.isCanonical()`, `family()`, the `is...()` address classes,
 * `cidr()`, `isCIDR()`, `containsIP()`, `containsCIDR()`, `ip()`, `masked()`, `prefixLength()` and `string()`.
 * Addresses parse as Go's `netip.ParseAddr` does (no leading zeros in IPv4 fields), and zones and
 * IPv4-mapped IPv6 addresses are refused as upstream's `parseIPAddr` refuses them.
 */
import { celFunc, celMethod, CelScalar, isCelMap, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { noSuchOverload, OPAQUE, opaque, unwrap } from './opaque.js';

const ipKey = '\u0000k8s.ip';
const cidrKey = '\u0000k8s.cidr';

/** An address: 4 bytes for IPv4, 16 for IPv6. */
type Addr = Uint8Array;

function parseIPv4(s: string): Addr | string {
  const fields = s.split('.');
  if (fields.length < 4) return 'IPv4 address too short';
  if (fields.length > 4) return 'IPv4 address too long';
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const f = fields[i] ?? '';
    if (!/^[0-9]+$/.test(f)) return f === '' ? 'IPv4 field must have at least one digit' : 'unexpected character';
    if (f.length > 1 && f.startsWith('0')) return 'IPv4 field has octet with leading zero';
    const n = Number(f);
    if (n > 255) return 'IPv4 field has value >255';
    out[i] = n;
  }
  return out;
}

function parseIPv6(s: string): Addr | string {
  if (s.includes('%')) return 'zone';
  const halves = s.split('::');
  if (halves.length > 2) return 'multiple :: in address';
  const groups = (part: string): number[] | string => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] ?? '';
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseIPv4(f);
        if (typeof v4 === 'string') return v4;
        out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(f)) out.push(parseInt(f, 16));
      else {
        const at = ` (at ${JSON.stringify(fields.slice(i).join(':'))})`;
        return f === '' ? `each colon-separated field must have at least one digit${at}` : `IPv6 field has value >=2^16${at}`;
      }
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = groups(halves[1] ?? '');
  if (typeof head === 'string') return head;
  if (typeof tail === 'string') return tail;
  const total = head.length + tail.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return halves.length === 1 ? 'address string too short' : 'address string too long';
  const all = [...head, ...new Array<number>(8 - total).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** `parseIPAddr`: the address, or upstream's error message. */
function parseIPAddr(raw: string): Addr | Error {
  let a: Addr | string;
  if (raw.includes(':')) a = parseIPv6(raw);
  else if (raw.includes('.')) a = parseIPv4(raw);
  else a = 'unable to parse IP';
  if (a === 'zone') return new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (typeof a === 'string') return new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${a}`);
  if (is4In6(a)) return new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return a;
}

function is4In6(a: Addr): boolean {
  return a.length === 16 && a.slice(0, 10).every((b) => b === 0) && a[10] === 0xff && a[11] === 0xff;
}

/** `netip.Addr.String()`: dotted IPv4, or RFC 5952 IPv6 (lowercase, the longest run of zero groups as `::`). */
function addrString(a: Addr): string {
  if (a.length === 4) return [...a].join('.');
  const g = Array.from({ length: 8 }, (_, i) => ((a[2 * i] ?? 0) << 8) | (a[2 * i + 1] ?? 0));
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

function addrFrom(text: string): Addr {
  const a = parseIPAddr(text);
  if (a instanceof Error) throw a;
  return a;
}

function ipArg(m: CelMap): Addr {
  const v = unwrap(ipKey, m);
  if (typeof v !== 'string') throw noSuchOverload();
  return addrFrom(v);
}

interface Prefix {
  addr: Addr;
  bits: number;
}

/** `parseCIDR` (`netip.ParsePrefix`, IPv4-mapped addresses refused). */
function parseCIDR(raw: string): Prefix | Error {
  const fail = (why: string): Error => new Error(`network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${why}`);
  const slash = raw.lastIndexOf('/');
  if (slash < 0) return fail('no \'/\'');
  const addrText = raw.slice(0, slash);
  const bitsText = raw.slice(slash + 1);
  let a: Addr | string = addrText.includes(':') ? parseIPv6(addrText) : parseIPv4(addrText);
  if (a === 'zone') a = 'IPv6 zones cannot be present in a prefix';
  if (typeof a === 'string') return fail(`ParseAddr(${JSON.stringify(addrText)}): ${a}`);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) return fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > a.length * 8) return fail(`prefix length out of range`);
  if (is4In6(a)) return new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return { addr: a, bits };
}

function cidrArg(m: CelMap): Prefix {
  const v = unwrap(cidrKey, m);
  const p = typeof v === 'string' ? parseCIDR(v) : undefined;
  if (p === undefined || p instanceof Error) throw noSuchOverload();
  return p;
}

function cidrValue(p: Prefix): CelMap {
  return opaque(cidrKey, `${addrString(p.addr)}/${p.bits}`);
}

function masked(p: Prefix): Prefix {
  const addr = p.addr.map((b, i) => {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return { addr, bits: p.bits };
}

function containsAddr(p: Prefix, a: Addr): boolean {
  if (a.length !== p.addr.length) return false;
  const m = masked({ addr: a, bits: p.bits }).addr;
  const n = masked(p).addr;
  return m.every((b, i) => b === n[i]);
}

/** An IP given as an IP value or as a string. */
function ipOrString(v: CelValue): Addr {
  if (typeof v === 'string') return addrFrom(v);
  if (isCelMap(v)) return ipArg(v);
  throw noSuchOverload();
}

function cidrOrString(v: CelValue): Prefix {
  if (typeof v === 'string') {
    const p = parseCIDR(v);
    if (p instanceof Error) throw p;
    return p;
  }
  if (isCelMap(v)) return cidrArg(v);
  throw noSuchOverload();
}

const v4 = (a: Addr): boolean => a.length === 4;

export const ipFuncs: CelFunc[] = [
  celFunc('ip', [CelScalar.STRING], OPAQUE, (s) => opaque(ipKey, addrString(addrFrom(s)))),
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s) => !(parseIPAddr(s) instanceof Error)),
  celFunc('ip.isCanonical', [CelScalar.STRING], CelScalar.BOOL, (s) => addrString(addrFrom(s)) === s),
  celMethod('family', OPAQUE, [], CelScalar.INT, function () {
    return v4(ipArg(this)) ? 4n : 6n;
  }),
  celMethod('isUnspecified', OPAQUE, [], CelScalar.BOOL, function () {
    return ipArg(this).every((b) => b === 0);
  }),
  celMethod('isLoopback', OPAQUE, [], CelScalar.BOOL, function () {
    const a = ipArg(this);
    return v4(a) ? a[0] === 127 : a.slice(0, 15).every((b) => b === 0) && a[15] === 1;
  }),
  celMethod('isLinkLocalMulticast', OPAQUE, [], CelScalar.BOOL, function () {
    const a = ipArg(this);
    return v4(a) ? a[0] === 224 && a[1] === 0 && a[2] === 0 : a[0] === 0xff && ((a[1] ?? 0) & 0x0f) === 0x02;
  }),
  celMethod('isLinkLocalUnicast', OPAQUE, [], CelScalar.BOOL, function () {
    const a = ipArg(this);
    return v4(a) ? a[0] === 169 && a[1] === 254 : a[0] === 0xfe && ((a[1] ?? 0) & 0xc0) === 0x80;
  }),
  celMethod('isGlobalUnicast', OPAQUE, [], CelScalar.BOOL, function () {
    const a = ipArg(this);
    if (a.every((b) => b === 0)) return false;
    if (v4(a)) {
      if (a.every((b) => b === 255)) return false;
      return a[0] !== 127 && (a[0] ?? 0) < 224 && !(a[0] === 169 && a[1] === 254);
    }
    const loopback = a.slice(0, 15).every((b) => b === 0) && a[15] === 1;
    return !loopback && a[0] !== 0xff && !(a[0] === 0xfe && ((a[1] ?? 0) & 0xc0) === 0x80);
  }),
  celFunc('cidr', [CelScalar.STRING], OPAQUE, (s) => {
    const p = parseCIDR(s);
    // Upstream's stringToCIDR wraps parseCIDR's error in the same words again.
    if (p instanceof Error) throw new Error(`network address parse error during conversion from string: ${p.message}`);
    return cidrValue(p);
  }),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s) => !(parseCIDR(s) instanceof Error)),
  celMethod('containsIP', OPAQUE, [CelScalar.DYN], CelScalar.BOOL, function (ip) {
    return containsAddr(cidrArg(this), ipOrString(ip));
  }),
  celMethod('containsCIDR', OPAQUE, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    const p = cidrArg(this);
    const o = cidrOrString(other);
    return o.bits >= p.bits && containsAddr(p, o.addr);
  }),
  celMethod('ip', OPAQUE, [], OPAQUE, function () {
    return opaque(ipKey, addrString(cidrArg(this).addr));
  }),
  celMethod('masked', OPAQUE, [], OPAQUE, function () {
    return cidrValue(masked(cidrArg(this)));
  }),
  celMethod('prefixLength', OPAQUE, [], CelScalar.INT, function () {
    return BigInt(cidrArg(this).bits);
  }),
  celFunc('string', [OPAQUE], CelScalar.STRING, (m) => {
    const ip = m.get(ipKey);
    if (m.size === 1 && typeof ip === 'string') return ip;
    const c = m.get(cidrKey);
    if (m.size === 1 && typeof c === 'string') return c;
    throw noSuchOverload();
  }),
];
