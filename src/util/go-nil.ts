/** How Go reads JSON fields that may be missing or `null`. */

/** Whether a pointer field is set: JSON `null` decodes to Go's nil, as a missing field does. */
export function given<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null;
}

/** Whether a string field is empty: Go reads a missing or `null` string as `""`. */
export function unset(s: string | null | undefined): boolean {
  return s === undefined || s === null || s === '';
}
