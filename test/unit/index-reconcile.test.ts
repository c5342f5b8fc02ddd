import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import type { IndexMark, IndexMarks } from '../../src/store/index-marks'
import type { IndexKind } from '../../src/store/index-sync'
import { IndexedTable } from '../../src/store/index-sync'
import { FakeEmbedder, unit } from '../fakes/embedder'
import { ExactIndex } from '../fakes/exact-index'
import { indexRow } from '../fakes/index-rows'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'

interface Row {
  id: string
  text: string
  writtenAt: Date
}

/** The database side: rows by id, sliced in id order as the Koishi stores slice them. */
class Rows {
  rows = new Map<string, Row>()
  calls: { after: string }[] = []
  /** Throws at this call of `idsAfter` (a kill mid-comparison). */
  failAt?: number

  put(id: string, writtenAt = new Date()) {
    this.rows.set(id, { id, text: `text of ${id}`, writtenAt })
  }

  kind(): IndexKind<Row> {
    return {
      table: 'facts',
      name: 'facts',
      fields: (row) => ({ ...indexRow(row.id, row.text, 'alice', 1), vector: undefined as never }),
      load: async (ids) => ids.flatMap((id) => this.rows.get(id) ?? []),
      allIds: async () => [...this.rows.keys()],
      idsAfter: async (after, limit) => {
        this.calls.push({ after })
        if (this.calls.length === this.failAt) throw new Error('killed')
        return [...this.rows.keys()]
          .filter((id) => id > after)
          .sort()
          .slice(0, limit)
      },
      changedSince: async (since) => [...this.rows.values()].filter((row) => row.writtenAt >= since).map((row) => row.id),
    }
  }
}

class MemoryMarks implements IndexMarks {
  marks = new Map<string, IndexMark>()
  async get(table: string) {
    return this.marks.get(table)
  }
  async set(table: string, mark: IndexMark) {
    this.marks.set(table, { ...mark })
  }
}

const id = (i: number) => `f${String(i).padStart(5, '0')}`

function tableOf(rows: Rows, index: ExactIndex, outbox: MemoryOutbox, marks: MemoryMarks) {
  const embedder = new FakeEmbedder({ id: 'fake', dims: 3, vector: () => unit([1, 0, 0]) })
  return new IndexedTable({ index, embedder, outbox, marks, counters: new Counters(), logger: quiet }, rows.kind())
}

/** 5,000 rows in the database, every one indexed but those named in `lacking`; `extra` only in the index. */
function world(lacking: number[] = [], extra: string[] = []) {
  const rows = new Rows()
  const index = new ExactIndex()
  for (let i = 0; i < 5000; i++) {
    rows.put(id(i), new Date(Date.UTC(2025, 0, 1)))
    if (!lacking.includes(i)) index.rows.set(id(i), indexRow(id(i), 'x', 'alice', i))
  }
  for (const name of extra) index.rows.set(name, indexRow(name, 'x', 'alice', 1))
  return { rows, index, outbox: new MemoryOutbox(), marks: new MemoryMarks() }
}

const queued = (outbox: MemoryOutbox, op: 'upsert' | 'delete') =>
  outbox.rows
    .filter((row) => row.op === op)
    .map((row) => row.rowId)
    .sort()

describe('comparing an index with the database a slice at a time', () => {
  it('queues what the index lacks, removes what the database no longer has, and marks when it began', async () => {
    const { rows, index, outbox, marks } = world([10, 2500, 4999], ['gone'])
    const began = new Date()
    expect(await tableOf(rows, index, outbox, marks).reconcile()).toEqual({ missing: 3, extra: 1 })
    expect(queued(outbox, 'upsert')).toEqual([id(10), id(2500), id(4999)])
    expect(queued(outbox, 'delete')).toEqual(['gone'])
    // several slices, each after the last id of the one before
    expect(rows.calls.length).toBeGreaterThan(2)
    expect(rows.calls[0].after).toBe('')
    const mark = marks.marks.get('facts')!
    expect(mark.checkedFrom!.getTime()).toBeGreaterThanOrEqual(began.getTime())
    expect(mark.sweepFrom).toBeUndefined()
  })

  it('a comparison cut off by a kill goes on from where it stood, and finds what it had not reached', async () => {
    const { rows, index, outbox, marks } = world([10, 4999])
    rows.failAt = 2
    await expect(tableOf(rows, index, outbox, marks).reconcile()).rejects.toThrow('killed')
    expect(queued(outbox, 'upsert')).toEqual([id(10)])
    const cut = marks.marks.get('facts')!
    expect(cut.sweepFrom).toBeDefined()
    expect(cut.checkedFrom).toBeUndefined()

    // the next run (a new process) starts after the cursor, not from the first id
    rows.calls = []
    rows.failAt = undefined
    expect(await tableOf(rows, index, outbox, marks).reconcile()).toEqual({ missing: 1, extra: 0 })
    expect(rows.calls[0].after).toBe(cut.cursor)
    expect(queued(outbox, 'upsert')).toEqual([id(10), id(4999)])
    // the whole comparison counts from when the cut-off one began
    expect(marks.marks.get('facts')!.checkedFrom).toEqual(cut.sweepFrom)
  })

  it('a stop ends the comparison after its slice; the next one goes on from there', async () => {
    const { rows, index, outbox, marks } = world([4999])
    const stop = new AbortController()
    const table = tableOf(rows, index, outbox, marks)
    stop.abort()
    expect(await table.reconcile(stop.signal)).toEqual({ missing: 0, extra: 0 })
    expect(rows.calls).toHaveLength(1)
    expect(marks.marks.get('facts')!.cursor).toBe(id(1999))
    expect(await table.reconcile()).toEqual({ missing: 1, extra: 0 })
    expect(rows.calls[1].after).toBe(id(1999))
  })
})

describe('the comparison at a start', () => {
  it('compares only the rows written since the last whole comparison began (and an hour before)', async () => {
    const { rows, index, outbox, marks } = world([10])
    const table = tableOf(rows, index, outbox, marks)
    await table.reconcile()
    outbox.rows = []
    rows.calls = []
    // written to the database while the plugin was stopped, its index write lost
    rows.put('f99999')
    expect(await table.reconcileChanged()).toEqual({ missing: 1, extra: 0 })
    expect(queued(outbox, 'upsert')).toEqual(['f99999'])
    // an old row missing since before the mark is left to the comparison of every row (the 10-minute timer)
    expect(rows.calls).toEqual([])
  })

  it('with no whole comparison yet, compares every row', async () => {
    const { rows, index, outbox, marks } = world([10])
    expect(await tableOf(rows, index, outbox, marks).reconcileChanged()).toEqual({ missing: 1, extra: 0 })
    expect(queued(outbox, 'upsert')).toEqual([id(10)])
    expect(marks.marks.get('facts')!.checkedFrom).toBeDefined()
  })
})
