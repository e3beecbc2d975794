/**
 * The `Warning` response headers of a request, as kube-apiserver's warning recorder writes them
 * (k8s.io/apiserver/pkg/endpoints/filters/warning.go): each distinct text once, in order, as
 * `299 - "<text>"` (`net.NewWarningHeader`: only `"` and `\` are escaped); past 4 Ki runes in total every
 * warning is cut to 256 runes, and once truncating, new warnings are dropped when the total is full.
 */

/** `truncateAtTotalRunes`. */
export const truncateAtTotalRunes = 4 * 1024;
/** `truncateItemRunes`. */
export const truncateItemRunes = 256;

/** `makeQuotedString`: `"` and `\` escaped, everything else as is. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * The header value of one warning. Go's server writes a header's bytes as they are (UTF-8) and turns line
 * breaks into spaces. Node writes header strings as UTF-8 too but refuses characters past U+00FF, which
 * would fail the whole response: those become `?` (text the API server itself writes is ASCII; this
 * guards names and values a client sent).
 */
function headerValue(text: string): string {
  return `299 - ${quoted(text)}`.replace(/[\r\n]/g, ' ').replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

function cut(text: string): { text: string; runes: number } {
  const runes = [...text];
  return runes.length > truncateItemRunes ? { text: runes.slice(0, truncateItemRunes).join(''), runes: truncateItemRunes } : { text, runes: runes.length };
}

/** The `Warning` header values for the warnings a request collected, in order. */
export function warningHeaders(texts: readonly string[]): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const original of texts) {
    if (original.length === 0) continue;
    if (written >= truncateAtTotalRunes && truncating) break;
    if (recorded.has(original)) continue;
    recorded.add(original);
    ordered.push(original);
    let text = original;
    let runes = [...original].length;
    if (truncating && runes > truncateItemRunes) ({ text, runes } = cut(original));
    if (written + runes <= truncateAtTotalRunes || truncating) {
      written += runes;
      headers.push(headerValue(text));
      continue;
    }
    // Over the limit: truncate from now on, and replay what was recorded so far, each cut to 256 runes.
    truncating = true;
    written = 0;
    headers = [];
    for (const w of ordered) {
      const c = cut(w);
      written += c.runes;
      headers.push(headerValue(c.text));
    }
  }
  return headers;
}
