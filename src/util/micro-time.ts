/** `metav1.MicroTime` as it marshals: RFC 3339 in UTC with six fractional digits (ours has milliseconds). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
