/**
 * Token-budget selection for the baselines. Both return indices into the caller's list.
 */

/**
 * The best that fit: walk `ranked` (indices, best first) and take every item whose cost still fits in
 * what is left of the budget; an item too large is skipped and the walk goes on.
 */
export function packGreedy(ranked: number[], cost: (i: number) => number, budget: number): number[] {
  const chosen: number[] = []
  let left = budget
  for (const i of ranked) {
    const c = cost(i)
    if (c <= left) {
      chosen.push(i)
      left -= c
    }
  }
  return chosen
}

/**
 * The recent window: the last items before `end` (exclusive), newest first, as long as they fit; stops
 * at the first that does not (a window has no holes).
 */
export function packRecent(end: number, cost: (i: number) => number, budget: number): number[] {
  const chosen: number[] = []
  let left = budget
  for (let i = end - 1; i >= 0; i--) {
    const c = cost(i)
    if (c > left) break
    chosen.push(i)
    left -= c
  }
  return chosen
}
