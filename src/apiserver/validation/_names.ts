/**
 * Name and value syntax checks of apimachinery's `k8s.io/apimachinery/pkg/util/validation`: each returns
 * the list of messages upstream returns (empty when valid), word for word, including upstream's double
 * space in `RegexError` examples (`(e.g. 'my-name',  or '123-abc', ...)`).
 */

export const dns1123LabelMaxLength = 63;
export const dns1123SubdomainMaxLength = 253;
export const dns1035LabelMaxLength = 63;
export const qualifiedNameMaxLength = 63;
export const labelValueMaxLength = 63;

/** `validation.MaxLenError`. */
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** `validation.EmptyError`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/** `validation.InclusiveRangeError`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** `validation.RegexError`: the message, the examples and the regex (note upstream's ", " + " or " joiner). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

const qualifiedNameCharFmt = '[A-Za-z0-9]';
const qualifiedNameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qualifiedNameCharFmt}${qualifiedNameExtCharFmt}*)?${qualifiedNameCharFmt}`;
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

const envVarNameFmt = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const envVarNameFmtErrMsg = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const envVarNameRe = new RegExp(`^${envVarNameFmt}$`);

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

const percentFmt = '[0-9]+%';
const percentErrMsg = "a valid percent string must be a numeric string followed by an ending '%'";
const percentRe = new RegExp(`^${percentFmt}$`);

const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentifierErrMsg = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";
const cIdentifierRe = new RegExp(`^${cIdentifierFmt}$`);

/** `IsDNS1123Label`. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123LabelMaxLength) errs.push(maxLenError(dns1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  return errs;
}

/** `IsDNS1123Subdomain`. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const wildcardDNS1123SubdomainFmt = `\\*\\.${dns1123SubdomainFmt}`;
const wildcardDNS1123SubdomainErrMsg =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDNS1123SubdomainRe = new RegExp(`^${wildcardDNS1123SubdomainFmt}$`);

/** `IsWildcardDNS1123Subdomain` (`*.example.com`). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!wildcardDNS1123SubdomainRe.test(value)) errs.push(regexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, '*.example.com'));
  return errs;
}

/** `IsDNS1035Label`. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1035LabelMaxLength) errs.push(maxLenError(dns1035LabelMaxLength));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** `IsQualifiedName`: `[prefix/]name` as label keys and annotation keys. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (name.length > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** `IsValidLabelValue`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** `IsEnvVarName` (strict form; RelaxedEnvironmentVariableValidation is off by default in 1.32). */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRe.test(value)) errs.push(regexError(envVarNameFmtErrMsg, envVarNameFmt, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  errs.push(...hasChDirPrefix(value));
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === '.') return [`must not be '.'`];
  if (value === '..') return [`must not be '..'`];
  if (value.startsWith('..')) return [`must not start with '..'`];
  return [];
}

/** `IsConfigMapKey` (also used for Secret keys). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...hasChDirPrefix(value));
  return errs;
}

/** `IsValidPercent`. */
export function isValidPercent(value: string): string[] {
  if (!percentRe.test(value)) return [regexError(percentErrMsg, percentFmt, '1%', '93%')];
  return [];
}

/** `IsCIdentifier`. */
export function isCIdentifier(value: string): string[] {
  if (!cIdentifierRe.test(value)) return [regexError(cIdentifierErrMsg, cIdentifierFmt, 'my_name', 'MY_NAME', 'MyName')];
  return [];
}

/** `IsValidPortNum`. */
export function isValidPortNum(port: number): string[] {
  if (port >= 1 && port <= 65535) return [];
  return [inclusiveRangeError(1, 65535)];
}

/** `IsValidPortName`. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** `IsValidIP` messages: an address `ParseIPSloppy` reads (1.32: IPv4 octets may have leading zeros). */
export function isValidIP(value: string): string[] {
  if (parseIPSloppy(value) !== undefined) return [];
  return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

export function parseIPv4(value: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (m === null) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i] ?? '';
    if (part.length > 1 && part.startsWith('0')) return undefined;
    const v = Number(part);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function isIPv6(value: string): boolean {
  if (!value.includes(':')) return false;
  if (!/^[0-9a-fA-F:.]+$/.test(value)) return false;
  const dbl = value.split('::');
  if (dbl.length > 2) return false;
  const groups = value.split(':').filter((g) => g !== '');
  return groups.length <= 8 && groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g) || parseIPv4(g) !== undefined);
}

/**
 * An IP address as k8s.io/utils/net's `ParseIPSloppy` reads it (Go's pre-1.17 parser: IPv4 octets may
 * carry leading zeros, IPv6 may end in a dotted IPv4), as 16 bytes (IPv4 in its v4-in-v6 form), or
 * undefined when it does not parse.
 */
export function parseIPSloppy(value: string): Uint8Array | undefined {
  for (const c of value) {
    if (c === '.') return parseIPv4Sloppy(value);
    if (c === ':') return parseIPv6(value);
  }
  return undefined;
}

const v4InV6Prefix = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIPv4Sloppy(value: string): Uint8Array | undefined {
  const parts = value.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d+$/.test(p) && Number(p) <= 255)) return undefined;
  return Uint8Array.from([...v4InV6Prefix, ...parts.map(Number)]);
}

/** Go's `parseIPv6`: hex groups, one `::`, an optional trailing dotted IPv4. */
function parseIPv6(value: string): Uint8Array | undefined {
  const ip = new Uint8Array(16);
  let s = value;
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return ip;
  }
  let i = 0;
  while (i < 16) {
    const m = /^[0-9a-fA-F]+/.exec(s);
    if (m === null || parseInt(m[0], 16) > 0xffff) return undefined;
    const c = m[0].length;
    if (s[c] === '.') {
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return undefined;
      const v4 = parseIPv4Sloppy(s);
      if (v4 === undefined) return undefined;
      ip.set(v4.subarray(12), i);
      s = '';
      i += 4;
      break;
    }
    const n = parseInt(m[0], 16);
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    s = s.slice(c);
    if (s === '') break;
    if (s[0] !== ':' || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    ip.copyWithin(ellipsis + n, ellipsis, i);
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return ip;
}

/** A parsed CIDR: its network address (4 or 16 bytes, as Go's `IPNet.IP`) and prefix length. */
export interface IPNet {
  readonly ip: Uint8Array;
  readonly prefix: number;
}

/** `netutils.ParseCIDRSloppy`'s network (`_, ipnet, err := ...`), or undefined when it does not parse. */
export function parseCIDRSloppy(value: string): IPNet | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const addr = value.slice(0, slash);
  const mask = value.slice(slash + 1);
  let ip = parseIPv4Sloppy(addr)?.subarray(12);
  if (ip === undefined) ip = parseIPv6(addr);
  if (ip === undefined || !/^\d+$/.test(mask)) return undefined;
  const prefix = Number(mask);
  if (prefix > ip.length * 8) return undefined;
  return { ip: maskIP(ip, prefix), prefix };
}

function maskIP(ip: Uint8Array, prefix: number): Uint8Array {
  return ip.map((b, i) => {
    const bits = Math.min(8, Math.max(0, prefix - i * 8));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
}

/** Go's `To4`: the 4-byte form of an IPv4 (or v4-in-v6) address, else undefined. */
function to4(ip: Uint8Array): Uint8Array | undefined {
  if (ip.length === 4) return ip;
  return v4InV6Prefix.every((b, i) => ip[i] === b) ? ip.subarray(12) : undefined;
}

/** `(*net.IPNet).Contains`. */
export function ipNetContains(net: IPNet, ip: Uint8Array): boolean {
  const nn = to4(net.ip) ?? net.ip;
  const prefix = nn.length < net.ip.length ? net.prefix - 96 : net.prefix;
  const other = to4(ip) ?? ip;
  if (other.length !== nn.length) return false;
  const a = maskIP(nn, prefix);
  const b = maskIP(other, prefix);
  return a.every((x, i) => x === b[i]);
}

/** `NameIsDNSSubdomain` (with `prefix`, a trailing dash is allowed as for generateName). */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

/** `NameIsDNSLabel`. */
export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

/** `NameIsDNS1035Label`. */
export function nameIsDNS1035Label(name: string, prefix: boolean): string[] {
  return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
}

/**
 * `ValidatePathSegmentName` (`IsValidPathSegmentName`, or `IsValidPathSegmentPrefix` for a prefix): names
 * used in URL path segments (RBAC objects, object references). Every forbidden character is reported.
 */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -1)}a`;
  return name;
}

export type NameValidator = (name: string, prefix: boolean) => string[];
