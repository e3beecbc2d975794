/**
 * An object's JSON text without `metadata.managedFields`, cut out of the text rather than decoded and
 * written again. Informers in other threads drop managedFields on arrival (`trimManagedFields`), and in a
 * running pod they are about 40% of the text and half the cost of parsing it; cutting them here costs a
 * scan of the text up to their end, once per change however many watches carry it.
 *
 * The text must be what `JSON.stringify` writes (no whitespace), as stored objects are.
 */
import { eachMember, valueEnd } from './json-text.js';

const comma = 0x2c;
const openBrace = 0x7b;

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
