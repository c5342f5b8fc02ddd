/** A message's place in its channel's timeline. */
export interface Stamp {
  id: string
  createdAt: Date
}

/** Timeline order: by time, then by row id (messages that share a time). */
export function timelineOrder(a: Stamp, b: Stamp): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** In `sorted` (timeline order), the `turns` entries right before `time` and right after it; none at `time` itself. */
export function nearest<T extends Stamp>(sorted: T[], time: number, turns: number): { before: T[]; after: T[] } {
  const first = firstAtOrAfter(sorted, time)
  const last = firstAtOrAfter(sorted, time + 1)
  return { before: sorted.slice(Math.max(0, first - turns), first), after: sorted.slice(last, last + turns) }
}

/** Index of the first entry of `sorted` at or after `time`. */
export function firstAtOrAfter(sorted: Stamp[], time: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid].createdAt.getTime() < time) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * How many entries of `sorted` lie on one side of `time` (`side` < 0: before it, > 0: after it) no
 * further than `reach` milliseconds away.
 */
export function countWithin(sorted: Stamp[], time: number, side: number, reach: number): number {
  return side < 0
    ? firstAtOrAfter(sorted, time) - firstAtOrAfter(sorted, time - reach)
    : firstAtOrAfter(sorted, time + reach + 1) - firstAtOrAfter(sorted, time + 1)
}

/** Closed time ranges `[from, to]`, overlapping and touching ones merged, in time order. */
export function mergeRanges(ranges: [number, number][]): [number, number][] {
  const merged: [number, number][] = []
  for (const [from, to] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1)
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to)
    else merged.push([from, to])
  }
  return merged
}
