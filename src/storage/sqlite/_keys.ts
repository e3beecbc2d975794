/**
 * Key-range helpers for the SQLite backend. SQLite compares TEXT with memcmp over UTF-8 (the BINARY
 * collation), which orders strings exactly as etcd orders its byte keys, so a prefix is the half-open
 * range [prefix, prefixEnd(prefix)).
 */

const maxCodePoint = 0x10ffff;

/**
 * The smallest string greater than every string that starts with `prefix` (etcd's `GetPrefixRangeEnd`
 * over code points instead of bytes), or undefined when the range is unbounded (empty prefix, or a prefix
 * made only of U+10FFFF).
 */
export function prefixEnd(prefix: string): string | undefined {
  const codePoints = Array.from(prefix, (c) => c.codePointAt(0) ?? 0);
  while (codePoints.length > 0) {
    const last = codePoints.pop() ?? 0;
    if (last < maxCodePoint) {
      // Skip the surrogate block: it has no UTF-8 encoding, and U+E000 sorts right after U+D7FF in UTF-8.
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return String.fromCodePoint(...codePoints, next);
    }
  }
  return undefined;
}
