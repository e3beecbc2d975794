/**
 * Go's `omitempty` for status integers: upstream encodes the Go structs, so a zero in an `omitempty` field
 * never reaches the API. kubemix writes JSON directly, so controllers drop those zeros themselves and their
 * objects read like a real cluster's (`kubectl get -o yaml`).
 */
export function omitZeros<T extends object>(o: T, keys: readonly (keyof T)[]): T {
  const out = { ...o };
  for (const k of keys) if (out[k] === 0) delete out[k];
  return out;
}
