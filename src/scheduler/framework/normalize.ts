import type { NodeScore } from './interfaces.js';

/**
 * `helper.DefaultNormalizeScore`: scales scores to [0, maxPriority] by the maximum (integer division),
 * reversed if asked; when every score is 0, reversed scores all become maxPriority.
 */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let maxCount = 0;
  for (const s of scores) if (s.score > maxCount) maxCount = s.score;
  if (maxCount === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return;
  }
  for (const s of scores) {
    let score = Math.trunc((maxPriority * s.score) / maxCount);
    if (reverse) score = maxPriority - score;
    s.score = score;
  }
}
