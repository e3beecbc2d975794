/**
 * `metav1.Time` as it marshals: RFC 3339 in UTC to the second. Its writers name the current second many
 * times over (a pod's status, a node's conditions, an event's first and last timestamps), so the text of
 * the last second asked is kept, and the values written within one second share one string (an event
 * correlator keeps its events' first timestamps for as long as it keeps them).
 */
let lastSecond = Number.NaN;
let lastText = '';

export function metav1Time(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastText;
}
