/** Narrowing helpers for queueing hints, whose event objects arrive untyped. */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';

export function asNode(o: unknown): Node | undefined {
  if (typeof o !== 'object' || o === null) return undefined;
  const k = (o as { kind?: unknown }).kind;
  if (k !== undefined && k !== 'Node') return undefined;
  return o;
}

export function asPod(o: unknown): Pod | undefined {
  if (typeof o !== 'object' || o === null) return undefined;
  const k = (o as { kind?: unknown }).kind;
  if (k !== undefined && k !== 'Pod') return undefined;
  return o;
}
