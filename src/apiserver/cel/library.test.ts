import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCelError, parse, plan } from '@bufbuild/cel';
import { newBaseEnv as newRuleEnv } from './expr.js';

const env = newRuleEnv();

/** Evaluates `expr` with the CRD rule environment: its value, or the runtime error's message. */
function evaluate(expr: string): unknown {
  const r = plan(env, parse(expr))({});
  return isCelError(r) ? { error: r.message } : r;
}

interface Case {
  name: string;
  expr: string;
  want?: unknown;
  /** A pattern the runtime error must match. */
  err?: RegExp;
}

function run(suite: string, cases: Case[]): void {
  for (const c of cases) {
    test(`${suite}/${c.name}`, () => {
      const got = evaluate(c.expr);
      if (c.err !== undefined) {
        assert.ok(typeof got === 'object' && got !== null && 'error' in got, `${c.expr}: no runtime error thrown`);
        assert.match(String(got.error), c.err);
      } else {
        assert.deepEqual(got, c.want, c.expr);
      }
    });
  }
}

// k8s.io/apiserver/pkg/cel/library/quantity_test.go TestQuantity (mul, div and divInt are newer than 1.32;
// the cases that expect compile errors need cel-go's type checker).
run('TestQuantity', [
  { name: 'parse', expr: 'quantity("12Mi") == quantity("12582912")', want: true },
  { name: 'parseInvalidSuffix', expr: 'quantity("10Mo")', err: /quantities must match the regular expression.*/ },
  { name: 'parseInvalidSuffixPassesRegex', expr: 'quantity("10Mm")', err: /unable to parse quantity's suffix/ },
  { name: 'isQuantity', expr: 'isQuantity("20")', want: true },
  { name: 'isQuantity_megabytes', expr: 'isQuantity("20M")', want: true },
  { name: 'isQuantity_mebibytes', expr: 'isQuantity("20Mi")', want: true },
  { name: 'isQuantity_invalidSuffix', expr: 'isQuantity("20Mo")', want: false },
  { name: 'isQuantity_passingRegex', expr: 'isQuantity("10Mm")', want: false },
  { name: 'equality_reflexivity', expr: 'quantity("200M") == quantity("200M")', want: true },
  { name: 'equality_symmetry', expr: 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', want: true },
  { name: 'equality_transitivity', expr: 'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', want: true },
  { name: 'inequality', expr: 'quantity("200M") == quantity("0.3G")', want: false },
  { name: 'quantity_less', expr: 'quantity("50M").isLessThan(quantity("50Mi"))', want: true },
  { name: 'quantity_less_obvious', expr: 'quantity("50M").isLessThan(quantity("100M"))', want: true },
  { name: 'quantity_less_false', expr: 'quantity("100M").isLessThan(quantity("50M"))', want: false },
  { name: 'quantity_greater', expr: 'quantity("50Mi").isGreaterThan(quantity("50M"))', want: true },
  { name: 'quantity_greater_obvious', expr: 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', want: true },
  { name: 'quantity_greater_false', expr: 'quantity("50M").isGreaterThan(quantity("100M"))', want: false },
  { name: 'compare_equal', expr: 'quantity("200M").compareTo(quantity("0.2G"))', want: 0n },
  { name: 'compare_less', expr: 'quantity("50M").compareTo(quantity("50Mi"))', want: -1n },
  { name: 'compare_greater', expr: 'quantity("50Mi").compareTo(quantity("50M"))', want: 1n },
  { name: 'add_quantity', expr: 'quantity("50k").add(quantity("20")) == quantity("50.02k")', want: true },
  { name: 'add_int', expr: 'quantity("50k").add(20).isLessThan(quantity("50020"))', want: false },
  { name: 'sub_quantity', expr: 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', want: true },
  { name: 'sub_int', expr: 'quantity("50k").sub(20) == quantity("49980")', want: true },
  { name: 'arith_chain_1', expr: 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', want: -49980n },
  { name: 'arith_chain', expr: 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', want: 20n },
  { name: 'as_integer', expr: 'quantity("50k").asInteger()', want: 50000n },
  { name: 'as_integer_error', expr: 'quantity("9999999999999999999999999999999999999G").asInteger()', err: /cannot convert value to integer/ },
  { name: 'is_integer', expr: 'quantity("9999999999999999999999999999999999999G").isInteger()', want: false },
  { name: 'is_integer 50', expr: 'quantity("50").isInteger()', want: true },
  { name: 'as_float', expr: 'quantity("50.703k").asApproximateFloat()', want: 50703 },
  { name: 'sign', expr: 'quantity("-1m").sign() == -1 && quantity("0").sign() == 0 && quantity("1Ki").sign() == 1', want: true },
]);

// library/regex_test.go TestRegex (runtime cases).
run('TestRegex', [
  { name: 'find', expr: '"abc 123".find("[0-9]+")', want: '123' },
  { name: 'find no match', expr: '"abc 123".find("xyz")', want: '' },
  { name: 'findAll', expr: '"123 abc 456".findAll("[0-9]+") == ["123", "456"]', want: true },
  { name: 'findAll with limit', expr: '"123 abc 456".findAll("[0-9]+", 1) == ["123"]', want: true },
  { name: 'findAll no match', expr: '"abc".findAll("[0-9]+") == []', want: true },
  { name: 'invalid pattern', expr: '"abc".find(")")', err: /error parsing regexp/ },
]);

// library/lists_test.go TestLists (runtime cases).
run('TestLists', [
  { name: 'sum', expr: '[1, 2, 3].sum()', want: 6n },
  { name: 'sum double', expr: '[1.5, 2.5].sum()', want: 4 },
  { name: 'sum empty', expr: '[].sum()', want: 0n },
  { name: 'min', expr: '[3, 1, 2].min()', want: 1n },
  { name: 'max', expr: '[3, 1, 2].max()', want: 3n },
  { name: 'min empty', expr: '[].min()', err: /min called on empty list/ },
  { name: 'max empty', expr: '[].max()', err: /max called on empty list/ },
  { name: 'isSorted', expr: '[1, 2, 2, 3].isSorted() && !["b", "a"].isSorted()', want: true },
  { name: 'indexOf', expr: '[1, 2, 2, 3].indexOf(2)', want: 1n },
  { name: 'lastIndexOf', expr: '[1, 2, 2, 3].lastIndexOf(2)', want: 2n },
  { name: 'indexOf absent', expr: '[1, 2].indexOf(5)', want: -1n },
  { name: 'sum overflow', expr: '[9223372036854775807, 1].sum()', err: /integer overflow/ },
]);

// library/urls_test.go TestURLs (runtime cases).
run('TestURLs', [
  { name: 'scheme', expr: 'url("https://kubernetes.io/").getScheme()', want: 'https' },
  { name: 'host with port', expr: 'url("https://kubernetes.io:443/").getHost()', want: 'kubernetes.io:443' },
  { name: 'default port kept', expr: 'url("http://kubernetes.io:80/").getPort()', want: '80' },
  { name: 'ipv6 hostname', expr: 'url("https://[::1]:80/").getHostname()', want: '::1' },
  { name: 'escaped path', expr: 'url("https://kubernetes.io/a b").getEscapedPath()', want: '/a%20b' },
  { name: 'query', expr: 'url("https://kubernetes.io/?a=1&a=2&b=3").getQuery() == {"a": ["1", "2"], "b": ["3"]}', want: true },
  { name: 'isURL relative path', expr: 'isURL("/docs")', want: true },
  { name: 'isURL relative', expr: 'isURL("docs")', want: false },
  { name: 'url invalid', expr: 'url("docs")', err: /URL parse error during conversion from string/ },
  { name: 'equality', expr: 'url("https://a/") == url("https://a/") && url("https://a/") != url("https://b/")', want: true },
]);

// cel-go ext/sets_test.go (the Kubernetes base environment adds ext.Sets in 1.29).
run('TestSets', [
  { name: 'contains empty', expr: 'sets.contains([], [])', want: true },
  { name: 'contains', expr: 'sets.contains([1, 2, 3], [2, 3])', want: true },
  { name: 'contains not', expr: 'sets.contains([1, 2], [3])', want: false },
  { name: 'contains mixed numbers', expr: 'sets.contains([1, 2.0], [1.0, 2u])', want: true },
  { name: 'equivalent', expr: 'sets.equivalent([1, 2, 2], [2, 1])', want: true },
  { name: 'equivalent not', expr: 'sets.equivalent([1, 2], [1, 2, 3])', want: false },
  { name: 'intersects', expr: 'sets.intersects([1, 2], [2, 3])', want: true },
  { name: 'intersects empty', expr: 'sets.intersects([1], [])', want: false },
]);

// cel-go ext/strings_test.go: strings.quote (ext.Strings version 2), Go's SplitN for split with a limit, and
// indices counted in code points.
run('TestStrings', [
  { name: 'quote', expr: 'strings.quote("first\\nsecond") == "\\"first\\\\nsecond\\""', want: true },
  { name: 'quote escapes', expr: 'strings.quote("bell\\a tab\\t quote\\"") == "\\"bell\\\\a tab\\\\t quote\\\\\\"\\""', want: true },
  { name: 'split limit', expr: '"a b c".split(" ", 2) == ["a", "b c"]', want: true },
  { name: 'split limit 0', expr: '"a b c".split(" ", 0) == []', want: true },
  { name: 'split limit -1', expr: '"a b c".split(" ", -1) == ["a", "b", "c"]', want: true },
  { name: 'charAt counts code points', expr: '"👑abc".charAt(1)', want: 'a' },
  { name: 'charAt at the end', expr: '"abc".charAt(3)', want: '' },
  { name: 'charAt out of range', expr: '"abc".charAt(4)', err: /^index out of range: 4$/ },
  { name: 'indexOf counts code points', expr: '"👑abc👑c".indexOf("c") == 3 && "👑abc👑c".lastIndexOf("c") == 5 && "👑abc".indexOf("c", 2) == 3', want: true },
  { name: 'substring counts code points', expr: '"👑abc".substring(1, 3)', want: 'ab' },
  { name: 'substring invalid range', expr: '"abc".substring(2, 1)', err: /^invalid substring range\. start: 2, end: 1$/ },
]);

// Optional values, as optionalOldSelf binds them.
run('TestOptional', [
  { name: 'of', expr: 'optional.of(1).hasValue() && optional.of(1).value() == 1', want: true },
  { name: 'none', expr: '!optional.none().hasValue() && optional.none().orValue(2) == 2', want: true },
  { name: 'or', expr: 'optional.none().or(optional.of(3)).value()', want: 3n },
  { name: 'none value', expr: 'optional.none().value()', err: /optional.none\(\) dereference/ },
]);

// library/ip_test.go TestIP (the compile-error and `type() == net.IP` cases need cel-go's types).
run('TestIP', [
  { name: 'parse ipv4', expr: 'ip("192.168.0.1") == ip("192.168.0.1")', want: true },
  {
    name: 'parse invalid ipv4',
    expr: 'ip("192.168.0.1.0")',
    err: /^IP Address "192\.168\.0\.1\.0" parse error during conversion from string: ParseAddr\("192\.168\.0\.1\.0"\): IPv4 address too long$/,
  },
  { name: 'isIP valid ipv4', expr: 'isIP("192.168.0.1")', want: true },
  { name: 'isIP invalid ipv4', expr: 'isIP("192.168.0.1.0")', want: false },
  { name: 'ip.isCanonical valid ipv4', expr: 'ip.isCanonical("127.0.0.1")', want: true },
  {
    name: 'ip.isCanonical invalid ipv4',
    expr: 'ip.isCanonical("127.0.0.1.0")',
    err: /^IP Address "127\.0\.0\.1\.0" parse error during conversion from string: ParseAddr\("127\.0\.0\.1\.0"\): IPv4 address too long$/,
  },
  { name: 'ipv4 family', expr: 'ip("192.168.0.1").family()', want: 4n },
  { name: 'ipv4 isUnspecified true', expr: 'ip("0.0.0.0").isUnspecified()', want: true },
  { name: 'ipv4 isUnspecified false', expr: 'ip("127.0.0.1").isUnspecified()', want: false },
  { name: 'ipv4 isLoopback true', expr: 'ip("127.0.0.1").isLoopback()', want: true },
  { name: 'ipv4 isLoopback false', expr: 'ip("1.2.3.4").isLoopback()', want: false },
  { name: 'ipv4 isLinkLocalMulticast true', expr: 'ip("224.0.0.1").isLinkLocalMulticast()', want: true },
  { name: 'ipv4 isLinkLocalMulticast false', expr: 'ip("224.0.1.1").isLinkLocalMulticast()', want: false },
  { name: 'ipv4 isLinkLocalUnicast true', expr: 'ip("169.254.169.254").isLinkLocalUnicast()', want: true },
  { name: 'ipv4 isLinkLocalUnicast false', expr: 'ip("192.168.0.1").isLinkLocalUnicast()', want: false },
  { name: 'ipv4 isGlobalUnicast true', expr: 'ip("192.168.0.1").isGlobalUnicast()', want: true },
  { name: 'ipv4 isGlobalUnicast false', expr: 'ip("255.255.255.255").isGlobalUnicast()', want: false },
  { name: 'parse ipv6', expr: 'ip("2001:db8::68") == ip("2001:0db8:0:0:0:0:0:68")', want: true },
  {
    name: 'parse invalid ipv6',
    expr: 'ip("2001:db8:::68")',
    err: /^IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr\("2001:db8:::68"\): each colon-separated field must have at least one digit \(at ":68"\)$/,
  },
  { name: 'isIP valid ipv6', expr: 'isIP("2001:db8::68")', want: true },
  { name: 'isIP invalid ipv6', expr: 'isIP("2001:db8:::68")', want: false },
  { name: 'ip.isCanonical valid ipv6', expr: 'ip.isCanonical("2001:db8::68")', want: true },
  { name: 'ip.isCanonical non-canonical ipv6', expr: 'ip.isCanonical("2001:DB8::68")', want: false },
  { name: 'ipv6 family', expr: 'ip("2001:db8::68").family()', want: 6n },
  { name: 'ipv6 isUnspecified true', expr: 'ip("::").isUnspecified()', want: true },
  { name: 'ipv6 isUnspecified false', expr: 'ip("::1").isUnspecified()', want: false },
  { name: 'ipv6 isLoopback true', expr: 'ip("::1").isLoopback()', want: true },
  { name: 'ipv6 isLoopback false', expr: 'ip("2001:db8::abcd").isLoopback()', want: false },
  { name: 'ipv6 isLinkLocalMulticast true', expr: 'ip("ff02::1").isLinkLocalMulticast()', want: true },
  { name: 'ipv6 isLinkLocalMulticast false', expr: 'ip("fd00::1").isLinkLocalMulticast()', want: false },
  { name: 'ipv6 isLinkLocalUnicast true', expr: 'ip("fe80::1").isLinkLocalUnicast()', want: true },
  { name: 'ipv6 isLinkLocalUnicast false', expr: 'ip("fd80::1").isLinkLocalUnicast()', want: false },
  { name: 'ipv6 isGlobalUnicast true', expr: 'ip("2001:db8::abcd").isGlobalUnicast()', want: true },
  { name: 'ipv6 isGlobalUnicast false', expr: 'ip("ff00::1").isGlobalUnicast()', want: false },
  { name: 'converting an IP address to a string', expr: 'string(ip("192.168.0.1"))', want: '192.168.0.1' },
  { name: 'zones are refused', expr: 'ip("fe80::1%eth0")', err: /^IP address "fe80::1%eth0" with zone value is not allowed$/ },
  { name: 'IPv4-mapped IPv6 is refused', expr: 'ip("::ffff:1.2.3.4")', err: /^IPv4-mapped IPv6 address "::ffff:1\.2\.3\.4" is not allowed$/ },
  { name: 'leading zeros are refused', expr: 'isIP("010.0.0.1")', want: false },
]);

// library/cidr_test.go TestCIDR.
run('TestCIDR', [
  { name: 'parse ipv4', expr: 'string(cidr(dyn("192.168.0.0/24")))', want: '192.168.0.0/24' },
  {
    name: 'parse invalid ipv4',
    expr: 'cidr("192.168.0.0/")',
    err: /^network address parse error during conversion from string: network address parse error during conversion from string: netip\.ParsePrefix\("192\.168\.0\.0\/"\): bad bits after slash: ""$/,
  },
  { name: 'contains IP ipv4 (IP)', expr: 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', want: true },
  { name: 'does not contain IP ipv4 (IP)', expr: 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', want: false },
  { name: 'contains IP ipv4 (string)', expr: 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', want: true },
  { name: 'does not contain IP ipv4 (string)', expr: 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', want: false },
  { name: 'contains CIDR ipv4 (CIDR)', expr: 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', want: true },
  { name: 'does not contain IP ipv4 (CIDR)', expr: 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', want: false },
  { name: 'contains CIDR ipv4 (string)', expr: 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', want: true },
  { name: 'does not contain CIDR ipv4 (string)', expr: 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', want: false },
  { name: 'returns IP ipv4', expr: 'cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', want: true },
  { name: 'masks masked ipv4', expr: 'cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', want: true },
  { name: 'masks unmasked ipv4', expr: 'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', want: true },
  { name: 'returns prefix length ipv4', expr: 'cidr("192.168.0.0/24").prefixLength()', want: 24n },
  { name: 'parse ipv6', expr: 'string(cidr("2001:db8::/32"))', want: '2001:db8::/32' },
  {
    name: 'parse invalid ipv6',
    expr: 'cidr("2001:db8::/")',
    err: /^network address parse error during conversion from string: network address parse error during conversion from string: netip\.ParsePrefix\("2001:db8::\/"\): bad bits after slash: ""$/,
  },
  { name: 'contains IP ipv6 (IP)', expr: 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', want: true },
  { name: 'does not contain IP ipv6 (IP)', expr: 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', want: false },
  { name: 'contains IP ipv6 (string)', expr: 'cidr("2001:db8::/32").containsIP("2001:db8::1")', want: true },
  { name: 'does not contain IP ipv6 (string)', expr: 'cidr("2001:db8::/32").containsIP("2001:dc8::1")', want: false },
  { name: 'contains CIDR ipv6 (CIDR)', expr: 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', want: true },
  { name: 'does not contain IP ipv6 (CIDR)', expr: 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', want: false },
  { name: 'contains CIDR ipv6 (string)', expr: 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', want: true },
  { name: 'does not contain CIDR ipv6 (string)', expr: 'cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', want: false },
  { name: 'returns IP ipv6', expr: 'cidr("2001:db8::/32").ip() == ip("2001:db8::")', want: true },
  { name: 'masks masked ipv6', expr: 'cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")', want: true },
  { name: 'masks unmasked ipv6', expr: 'cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', want: true },
  { name: 'returns prefix length ipv6', expr: 'cidr("2001:db8::/32").prefixLength()', want: 32n },
  { name: 'converting a CIDR to a string', expr: 'string(cidr("192.168.0.0/24"))', want: '192.168.0.0/24' },
]);

// library/format_test.go TestFormat (runtime cases).
run('TestFormat', [
  { name: 'dns1123Label valid', expr: 'format.dns1123Label().validate("my-label-name")', want: evaluate('optional.none()') },
  {
    name: 'dns1123Label invalid',
    expr: 'format.dns1123Label().validate("contains a space").value()[0]',
    want: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  },
  { name: 'dns1123LabelPrefix allows a trailing dash', expr: '!format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', want: true },
  { name: 'dns1123Subdomain', expr: '!format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', want: true },
  { name: 'qualifiedName', expr: '!format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', want: true },
  { name: 'labelValue invalid', expr: 'format.labelValue().validate("a b").hasValue()', want: true },
  { name: 'uri', expr: '!format.uri().validate("http://example.com").hasValue()', want: true },
  { name: 'uri invalid', expr: 'format.uri().validate("example").value()', want: evaluate('["parse \\"example\\": invalid URI for request"]') },
  { name: 'uuid', expr: 'format.uuid().validate("not-a-uuid").value() == ["does not match the UUID format"]', want: true },
  { name: 'byte', expr: 'format.byte().validate("!!").value() == ["invalid base64"]', want: true },
  { name: 'date', expr: 'format.date().validate("2021-13-01").value() == ["invalid date"]', want: true },
  { name: 'datetime', expr: '!format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', want: true },
  { name: 'named', expr: 'format.named("dns1035Label").value().validate("1abc").hasValue()', want: true },
  { name: 'named unknown', expr: 'format.named("unknown").hasValue()', want: false },
]);
