/**
 * An object's JSON text without `metadata.managedFields`, cut out of the text rather than decoded and
 * written again. Informers in other threads drop managedFields on arrival (`trimManagedFields`), and in a
 * running pod they are about 40% of the text and half the cost of parsing it; cutting them here costs a
 * scan of the text up to their end, once per change however many watches carry it.
 *
 * The text must be what `JSON.stringify` writes (no whitespace), as stored objects are.
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
function valueEnd(text: string, start: number): number {
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
function eachMember(text: string, start: number, member: (keyStart: number, valueStart: number) => boolean): number {
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

/** [start, end) of the `"managedFields":...` member of the top-level metadata, with one comma beside it. */
export function managedFieldsSpan(text: string): [number, number] | undefined {
  if (text.charCodeAt(0) !== openBrace) return undefined;
  let span: [number, number] | undefined;
  eachMember(text, 0, (key, value) => {
    if (!text.startsWith('"metadata":{', key)) return false;
    eachMember(text, value, (k, v) => {
      if (!text.startsWith('"managedFields":', k)) return false;
      const end = valueEnd(text, v);
      // Take the comma before the member, or after it when it is the first one.
      span = text.charCodeAt(k - 1) === comma ? [k - 1, end] : [k, text.charCodeAt(end) === comma ? end + 1 : end];
      return true;
    });
    return true;
  });
  return span;
}

/** `text` without its object's `metadata.managedFields` (the same text when it has none). */
export function withoutManagedFields(text: string): string {
  const span = managedFieldsSpan(text);
  return span === undefined ? text : text.slice(0, span[0]) + text.slice(span[1]);
}
