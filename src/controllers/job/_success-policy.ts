/**
 * `matchSuccessPolicy` (pkg/controller/job/success_policy.go, v1.32): an Indexed Job meets its success
 * criteria when the succeeded indexes satisfy one of `spec.successPolicy.rules`, in order.
 */
import type { SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import { OrderedIntervals, parseIndexesFromString } from './_indexed.js';

/** The message of the SuccessCriteriaMet condition, or undefined when no rule is met. */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: OrderedIntervals): string | undefined {
  if (policy === undefined || succeeded.intervals.length === 0) return undefined;
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.succeededIndexes !== undefined && rule.succeededIndexes !== null) {
      const required = parseIndexesFromString(rule.succeededIndexes, completions);
      // An unparseable succeededIndexes matches nothing.
      if (required.intervals.length === 0) continue;
      if (matchSucceededIndexesRule(required, succeeded, rule.succeededCount)) return `Matched rules at index ${index}`;
    } else if (rule.succeededCount !== undefined && rule.succeededCount !== null && succeeded.total() >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}

/** All of `ruleIndexes` succeeded, or at least `succeededCount` of them did. */
export function matchSucceededIndexesRule(ruleIndexes: OrderedIntervals, succeeded: OrderedIntervals, succeededCount: number | undefined): boolean {
  const r = ruleIndexes.intervals;
  const s = succeeded.intervals;
  let contains = 0;
  let i = 0;
  let j = 0;
  while (i < r.length && j < s.length) {
    const ri = r[i] ?? { first: 0, last: -1 };
    const sj = s[j] ?? { first: 0, last: -1 };
    const overlap = Math.min(ri.last, sj.last) - Math.max(ri.first, sj.first) + 1;
    if (overlap > 0) contains += overlap;
    if (sj.last < ri.last) j++;
    else if (sj.last > ri.last) i++;
    else {
      i++;
      j++;
    }
  }
  return contains === ruleIndexes.total() || (succeededCount !== undefined && contains >= succeededCount);
}
