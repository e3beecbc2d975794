/**
 * Field selectors as apimachinery's `fields` package: `metadata.name=x,spec.nodeName!=y` with `=`, `==`
 * and `!=`, conjunctions only.
 */

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export class FieldSelectorParseError extends Error {}

export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  static everything(): FieldSelector {
    return new FieldSelector([]);
  }
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => {
      const v = fields[r.field] ?? '';
      return r.operator === '=' ? v === r.value : v !== r.value;
    });
  }
  /** The value a field must equal, when the selector pins it (for indexes). */
  requiresExactMatch(field: string): string | undefined {
    for (const r of this.requirements) if (r.field === field && r.operator === '=') return r.value;
    return undefined;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${r.value}`).join(',');
  }
}

/** Splits on unescaped `,`; values may escape `\,`, `\=`, `\\`. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    if (c === '\\' && i + 1 < s.length) {
      cur += c + (s[i + 1] ?? '');
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function unescape(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

/** `fields.ParseSelector`. */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === '') return FieldSelector.everything();
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (term === '') continue;
    let m: RegExpExecArray | null;
    if ((m = /^([^=!]+)!=(.*)$/s.exec(term)) !== null) reqs.push({ field: (m[1] ?? '').trim(), operator: '!=', value: unescape(m[2] ?? '') });
    else if ((m = /^([^=!]+)==(.*)$/s.exec(term)) !== null) reqs.push({ field: (m[1] ?? '').trim(), operator: '=', value: unescape(m[2] ?? '') });
    else if ((m = /^([^=!]+)=(.*)$/s.exec(term)) !== null) reqs.push({ field: (m[1] ?? '').trim(), operator: '=', value: unescape(m[2] ?? '') });
    else throw new FieldSelectorParseError(`invalid selector: '${input}'; can't understand '${term}'`);
  }
  return new FieldSelector(reqs);
}
