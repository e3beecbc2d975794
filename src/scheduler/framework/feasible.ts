/**
 * How many feasible nodes a cycle looks for (`numFeasibleNodesToFind` in schedule_one.go): all nodes
 * below 100; otherwise an adaptive percentage `50 - nodes/125`, at least 5%, and never fewer than 100.
 */
export const minFeasibleNodesToFind = 100;
export const minFeasibleNodesPercentageToFind = 5;

/** `percentageOfNodesToScore` 0 or undefined means adaptive. */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number | undefined, numAllNodes: number): number {
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  let percentage = percentageOfNodesToScore ?? 0;
  if (percentage === 0) {
    percentage = 50 - Math.trunc(numAllNodes / 125);
    if (percentage < minFeasibleNodesPercentageToFind) percentage = minFeasibleNodesPercentageToFind;
  }
  if (percentage >= 100) return numAllNodes;
  const numNodes = Math.trunc((numAllNodes * percentage) / 100);
  if (numNodes < minFeasibleNodesToFind) return minFeasibleNodesToFind;
  return numNodes;
}
