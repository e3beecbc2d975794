/**
 * Label selectors as apimachinery's `labels` package: requirements, the string syntax of
 * `?labelSelector=` (`a=b,c!=d,e in (x,y),!f`), and `metav1.LabelSelector` conversion.
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { compareStrings } from '../util/compare-strings.js';

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'DoubleEquals' | 'NotEquals' | 'Gt' | 'Lt';

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>> | undefined;

/** `labels.Requirement.Matches`. */
export function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'In':
    case 'Equals':
    case 'DoubleEquals':
      return has && r.values.includes(value ?? '');
    case 'NotIn':
    case 'NotEquals':
      return !has || !r.values.includes(value ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || r.values.length !== 1) return false;
      const lv = parseInt64(value ?? '');
      const rv = parseInt64(r.values[0] ?? '');
      if (lv === undefined || rv === undefined) return false;
      return r.operator === 'Gt' ? lv > rv : lv < rv;
    }
  }
}

function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  return BigInt(s);
}

/** A selector is a conjunction of requirements; the empty selector matches everything. */
export class Selector {
  constructor(readonly requirements: readonly Requirement[]) {}
  static everything(): Selector {
    return new Selector([]);
  }
  /** The selector that matches nothing (`labels.Nothing()`). */
  static nothing(): Selector {
    return new NothingSelector([]);
  }
  matches(labels: Labels): boolean {
    return this.requirements.every((r) => requirementMatches(r, labels));
  }
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }
  /** For indexes: the single value a key must equal, if the selector pins it. */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key === key && (r.operator === 'Equals' || r.operator === 'DoubleEquals' || r.operator === 'In') && r.values.length === 1) {
        return r.values[0];
      }
    }
    return undefined;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

class NothingSelector extends Selector {
  override matches(): boolean {
    return false;
  }
  override isEmpty(): boolean {
    return false;
  }
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'Equals':
      return `${r.key}=${r.values[0] ?? ''}`;
    case 'DoubleEquals':
      return `${r.key}==${r.values[0] ?? ''}`;
    case 'NotEquals':
      return `${r.key}!=${r.values[0] ?? ''}`;
    case 'Gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'Lt':
      return `${r.key}<${r.values[0] ?? ''}`;
    case 'In':
      return `${r.key} in (${[...r.values].sort().join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${[...r.values].sort().join(',')})`;
  }
}

export class SelectorParseError extends Error {}

/** Parses the string form of a label selector (`labels.Parse`). */
export function parseSelector(input: string): Selector {
  const reqs: Requirement[] = [];
  let i = 0;
  const s = input;
  const skipWs = (): void => {
    while (i < s.length && /\s/.test(s[i] ?? '')) i++;
  };
  const readIdent = (): string => {
    skipWs();
    const start = i;
    while (i < s.length && !/[\s,=!()<>]/.test(s[i] ?? '')) i++;
    return s.slice(start, i);
  };
  skipWs();
  if (i >= s.length) return Selector.everything();
  for (;;) {
    skipWs();
    let negated = false;
    if (s[i] === '!') {
      negated = true;
      i++;
    }
    const key = readIdent();
    if (key === '') throw new SelectorParseError(`found '${s[i] ?? 'EOS'}', expected: identifier`);
    skipWs();
    if (negated) {
      reqs.push({ key, operator: 'DoesNotExist', values: [] });
    } else if (i >= s.length || s[i] === ',') {
      reqs.push({ key, operator: 'Exists', values: [] });
    } else if (s.startsWith('==', i)) {
      i += 2;
      reqs.push({ key, operator: 'DoubleEquals', values: [readIdent()] });
    } else if (s.startsWith('!=', i)) {
      i += 2;
      reqs.push({ key, operator: 'NotEquals', values: [readIdent()] });
    } else if (s[i] === '=') {
      i += 1;
      reqs.push({ key, operator: 'Equals', values: [readIdent()] });
    } else if (s[i] === '>' || s[i] === '<') {
      const op = s[i] === '>' ? 'Gt' : 'Lt';
      i += 1;
      reqs.push({ key, operator: op, values: [readIdent()] });
    } else {
      const word = readIdent();
      if (word !== 'in' && word !== 'notin') throw new SelectorParseError(`unable to parse requirement: found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
      skipWs();
      if (s[i] !== '(') throw new SelectorParseError(`found '${s[i] ?? 'EOS'}', expected: '('`);
      i++;
      const values: string[] = [];
      for (;;) {
        const v = readIdent();
        values.push(v);
        skipWs();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ')') {
          i++;
          break;
        }
        throw new SelectorParseError(`found '${s[i] ?? 'EOS'}', expected: ',' or ')'`);
      }
      reqs.push({ key, operator: word === 'in' ? 'In' : 'NotIn', values });
    }
    skipWs();
    if (i >= s.length) break;
    if (s[i] !== ',') throw new SelectorParseError(`found '${s[i] ?? ''}', expected: ',' or 'end of string'`);
    i++;
  }
  return new Selector(reqs);
}

/**
 * `metav1.LabelSelectorAsSelector`: nil selects nothing, empty selects everything. A label `k: v` is the
 * requirement `k=v`, and the requirements are sorted by key, as `Selector.Add` keeps them (so the selector
 * prints as upstream's: a Scale's `status.selector` reads `app=web`).
 * Throws `SelectorParseError` for an unknown operator.
 */
export function labelSelectorAsSelector(ls: LabelSelector | undefined | null): Selector {
  if (ls === undefined || ls === null) return Selector.nothing();
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push({ key: k, operator: 'Equals', values: [v] });
  for (const e of ls.matchExpressions ?? []) {
    switch (e.operator) {
      case 'In':
      case 'NotIn':
      case 'Exists':
      case 'DoesNotExist':
        reqs.push({ key: e.key, operator: e.operator, values: e.values ?? [] });
        break;
      default:
        throw new SelectorParseError(`"${e.operator}" is not a valid label selector operator`);
    }
  }
  return new Selector(reqs.sort((a, b) => compareStrings(a.key, b.key)));
}

/** `labels.SelectorFromSet`: the labels a plain label map (a ReplicationController's or Service's selector) requires. */
export function selectorFromSet(set: Labels): Selector {
  return labelSelectorAsSelector({ matchLabels: set ?? {} });
}

/** `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when empty. */
export function formatLabels(labels: Labels): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',');
}
