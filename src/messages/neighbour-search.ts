import { Lru } from '../core/lru'
import type { Stamp } from './neighbours'
import { countWithin, firstAtOrAfter, timelineOrder } from './neighbours'

/** Reads of one channel's timeline (ids and times) that a `NeighbourSearch` plans. */
export interface TimelineReads {
  /** Every stamp of the channel within the closed time ranges. */
  inRanges(ranges: [number, number][]): Promise<Stamp[]>
  /** The `turns` stamps right before `time` (`side` < 0) or right after it. */
  beside(time: number, side: number, turns: number): Promise<Stamp[]>
}

/** Where the first read of a channel not searched yet reaches from each moment. */
const FIRST_SPAN_MS = 15_000
/** A side still short of turns is read again this many times as far out, for at most `SPAN_ROUNDS` reads. */
const SPAN_GROWTH = 4
const SPAN_ROUNDS = 4
/** A side with nothing said this long is next to a silence or an end of the channel. */
const SILENCE_MS = 60_000
/** Bounds of the span a channel's search starts with. */
const MIN_SPAN_MS = 1000
const MAX_SPAN_MS = 3_600_000
/** Share of the sides the first read of a channel's next search should settle. */
const SETTLED_SHARE = 0.8
/** Channels whose first span is remembered. */
const CHANNELS = 1000

/**
 * Finds, in a few reads however many moments there are, the stamps that tell which `turns` messages
 * lie on either side of each moment. The first read takes every message within a span of every moment,
 * in one query; a side that holds fewer than `turns` there is read further out, each round one query
 * for all such sides. A side with nothing said for a while (a silence, an end of the channel) is read
 * by a query of its own, as is what the rounds leave. The span a channel needed for most sides is where
 * its next search starts, so a busy chat is read little past what it needs and a slow one in few rounds;
 * it only decides how the reads are cut, never what they find.
 */
export class NeighbourSearch {
  private readonly spans = new Lru<number>(CHANNELS)

  /** The stamps, in timeline order: for each moment, at least its `turns` nearest on either side. */
  async stamps(channel: string, reads: TimelineReads, moments: number[], turns: number): Promise<Stamp[]> {
    const found = new Map<string, Stamp>()
    let short = moments.flatMap((time) => [
      { time, side: -1 },
      { time, side: 1 },
    ])
    const alone: typeof short = []
    // every side still short has been read from its moment out to `reach` on its side
    let reach = 0
    let span = this.spans.get(channel) ?? FIRST_SPAN_MS
    for (let round = 0; round < SPAN_ROUNDS && short.length; round++, span *= SPAN_GROWTH) {
      const ranges = short.map(({ time, side }): [number, number] => (side < 0 ? [time - span, time - reach] : [time + reach, time + span]))
      for (const stamp of await reads.inRanges(ranges)) found.set(stamp.id, stamp)
      reach = span
      const sorted = [...found.values()].sort(timelineOrder)
      const count = ({ time, side }: (typeof short)[number]) => countWithin(sorted, time, side, reach)
      short = short.filter((moment) => count(moment) < turns)
      if (reach < SILENCE_MS) continue
      alone.push(...short.filter((moment) => !count(moment)))
      short = short.filter((moment) => count(moment))
    }
    const beside = await Promise.all([...alone, ...short].map(({ time, side }) => reads.beside(time, side, turns)))
    for (const stamp of beside.flat()) found.set(stamp.id, stamp)
    const sorted = [...found.values()].sort(timelineOrder)
    this.remember(channel, sorted, moments, turns)
    return sorted
  }

  /** Remembers how far from its moment a side found its `turns`-th message, for most sides. */
  private remember(channel: string, sorted: Stamp[], moments: number[], turns: number) {
    const distances: number[] = []
    for (const time of moments) {
      const before = sorted[firstAtOrAfter(sorted, time) - turns]
      const after = sorted[firstAtOrAfter(sorted, time + 1) + turns - 1]
      if (before) distances.push(time - before.createdAt.getTime())
      if (after) distances.push(after.createdAt.getTime() - time)
    }
    if (!distances.length) return
    distances.sort((a, b) => a - b)
    const span = distances[Math.min(distances.length - 1, Math.floor(distances.length * SETTLED_SHARE))]
    this.spans.set(channel, Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, span)))
  }
}
