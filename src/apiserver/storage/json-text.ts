/**
 * Reading parts of a JSON text without decoding all of it: the members of an object and where each value
 * ends, found by scanning the text. For texts `JSON.stringify` wrote (no whitespace), as stored objects are;
 * a scan costs far less than the `JSON.parse` it saves when only a small part of a large object is wanted.
 */

const quote = 0x22; // "
const backslash = 0x5c;
const comma = 0x2c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

/** The index of the quote that ends the string starting at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    // Escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (text.charCodeAt(b) === backslash) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

/** The index just past the JSON value starting at `start`. */
export function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === quote) return stringEnd(text, start) + 1;
  if (c !== openBrace && c !== openBracket) {
    let i = start;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === comma || d === closeBrace || d === closeBracket) break;
    }
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === quote) i = stringEnd(text, i);
    else if (d === openBrace || d === openBracket) depth++;
    else if (d === closeBrace || d === closeBracket) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/**
 * The members of the object whose `{` is at `start`: calls `member` with each key's start (its quote) and
 * its value's start until it answers true. Answers the index past the object (or where `member` stopped).
 */
export function eachMember(text: string, start: number, member: (keyStart: number, valueStart: number) => boolean): number {
  let i = start + 1;
  while (i < text.length && text.charCodeAt(i) !== closeBrace) {
    const keyEnd = stringEnd(text, i);
    const valueStart = keyEnd + 2; // past `":`
    if (member(i, valueStart)) return i;
    i = valueEnd(text, valueStart);
    if (text.charCodeAt(i) === comma) i++;
  }
  return i + 1;
}

/**
 * The text of the value at `path` (member names, from the top-level object), or undefined when a member
 * on the way is missing or not an object.
 */
export function memberText(text: string, path: readonly string[]): string | undefined {
  let start = 0;
  for (const name of path) {
    if (text.charCodeAt(start) !== openBrace) return undefined;
    const key = JSON.stringify(name) + ':';
    let found = -1;
    eachMember(text, start, (k, v) => {
      if (!text.startsWith(key, k)) return false;
      found = v;
      return true;
    });
    if (found < 0) return undefined;
    start = found;
  }
  return text.slice(start, valueEnd(text, start));
}
