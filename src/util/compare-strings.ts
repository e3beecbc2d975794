/** Strings in Go's order (`sort.Strings`, `<` on strings): code unit by code unit, not by locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
