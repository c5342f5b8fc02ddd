import type { LineProblem, RecordKind, RecordRows } from './records'
import type { Layout } from './source'

export interface ImportOptions {
  /** The platform of mem0 memories (ours name their own). */
  platform?: string
  /** mem0 memories become this user's, whatever their `user_id`. */
  userId?: string
}

export interface BadLine {
  /** 1-based: the line of the file, or the entry of a JSON array (`layout: 'array'`). */
  line: number
  problem: LineProblem | 'store-failed'
  /** The validator's or the database's own words (English), or what a reference named. */
  detail?: string
}

export interface KindResult {
  imported: number
  /** Duplicates: a row with the same id and content, or the same content in the same place, is there already. */
  skipped: number
}

export interface ImportResult {
  counts: Record<RecordKind, KindResult>
  /** Lines that were not imported, in order; every other line was. */
  bad: BadLine[]
  /** `lines`: JSON Lines; `array`: one JSON array (or mem0's `{results: […]}`), whose entries `line` numbers. */
  layout: Layout
  /** Records read in each format. */
  formats: { ours: number; mem0: number }
  /** Rows stored under a fresh id, because theirs was taken by another row or too long for its column. */
  renamed: number
  /** References left out because they named nothing stored or imported (a source message not exported, say). */
  unlinked: number
}

/** A valid line: its row, of its kind. */
export interface Item<K extends RecordKind = RecordKind> {
  line: number
  kind: K
  data: RecordRows[K]
}
