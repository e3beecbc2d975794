/**
 * Shape of the committed protobuf schema (`k8s-1.32.ts`). One entry per protobuf message, fields in Go
 * struct order, carrying both the protobuf facts (name, number, type, label) and the Go facts the JSON
 * form depends on (JSON name, `omitempty`, `,inline`, pointer/slice/map), because the API server must turn
 * a protobuf body into exactly the JSON that the Go client would have sent for the same Go struct.
 */

/**
 * `[protoName, number, type, flags, jsonName?]`
 *
 * - `type`: a scalar protobuf type (`string`, `int32`, `int64`, `bool`, `bytes`, `double`, ...), a message
 *   name (relative to the message's own package when it has no dot, else fully qualified), or
 *   `map<K,V>` with the same rules for `V`.
 * - `flags` letters: `r` repeated; `o` Go `omitempty`; `i` Go `,inline` (fields merge into the parent);
 *   `p` Go pointer; `s` Go slice (incl. `[]byte` and named slices); `m` Go map. No `p`/`s`/`m` means a Go
 *   value (struct or scalar).
 * - `jsonName`: present only when it differs from `protoName`; `-` means not serialized to JSON.
 */
export type FieldTuple = readonly [name: string, number: number, type: string, flags: string, jsonName?: string];

export interface ProtoSchema {
  /** Where the facts were read from (tool, upstream version). */
  readonly origin: string;
  /** Fully qualified message name (`k8s.io.api.core.v1.Pod`) -> fields. */
  readonly messages: Readonly<Record<string, readonly FieldTuple[]>>;
  /**
   * Messages whose Go type is a named slice (`type ExtraValue []string`, `metav1.Verbs`): protobuf wraps
   * the elements in `repeated items = 1`, JSON is the bare array.
   */
  readonly arrayWrappers: readonly string[];
  /** apiVersion -> kind -> message, for every Go struct that embeds TypeMeta. */
  readonly kinds: Readonly<Record<string, Readonly<Record<string, string>>>>;
}
