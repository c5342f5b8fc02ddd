import { z } from 'zod'
import { stripThinking, tryParse, tryRepair } from '../text/json'
import type { GroupMemoryRow } from './types'

/**
 * Reading the model's JSON Lines answer (design §6.4) and turning it into operations
 * on real rows. Every line is read on its own: parsed as it stands, else repaired with `jsonrepair`,
 * else counted as invalid and skipped — one bad line never loses the others. Values are validated
 * with zod. Ids are the small integers the model was shown; anything else is rejected.
 */

const MAX_STATEMENT = 1000
const MAX_REASON = 1000

/** The id the model gives: the integer it was shown, possibly as a string ("3", "#3"). Checked later. */
const OldId = z.union([z.number(), z.string()])

const text = (max: number) => z.string().trim().max(max)
const Reason = z.preprocess((value) => (value === null ? undefined : value), text(MAX_REASON).optional())
/** Optional extras of a group memory (design §6.2); a bad value is dropped rather than losing the operation. */
const Tags = z.array(z.string().trim().min(1).max(32)).max(10).optional().catch(undefined)
const Strength = z.number().min(0).max(1).optional().catch(undefined)

const Common = {
  change_reason: Reason,
  reason: Reason,
  change_summary: Reason,
}

const OpSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('keep'), old_id: OldId }),
  z.object({
    action: z.literal('update'),
    old_id: OldId,
    statement: text(MAX_STATEMENT).min(1),
    ...Common,
    tags: Tags,
    strength: Strength,
  }),
  z.object({ action: z.literal('delete'), old_id: OldId, ...Common }),
  z.object({ action: z.literal('create'), statement: text(MAX_STATEMENT).min(1), ...Common, tags: Tags, strength: Strength }),
])

type ParsedOp = z.infer<typeof OpSchema>

/** One operation as the model stated it, validated, ids not yet resolved. */
export type RawOp =
  | { action: 'keep'; oldId: number | string }
  | { action: 'update'; oldId: number | string; statement: string; reason: string; tags?: string[]; strength?: number }
  | { action: 'delete'; oldId: number | string; reason: string }
  | { action: 'create'; statement: string; reason: string; tags?: string[]; strength?: number }

export interface ParsedAnswer {
  ops: RawOp[]
  /** Lines that looked like JSON but could not be read, or whose value failed validation. */
  invalid: { line: string; reason: string }[]
  /** Lines with no JSON in them (prose), skipped. */
  ignored: string[]
  /** Lines that needed `jsonrepair`. */
  repaired: number
}

function normalise(op: ParsedOp): RawOp {
  if (op.action === 'keep') return { action: 'keep', oldId: op.old_id }
  const reason = op.change_reason || op.reason || op.change_summary || ''
  if (op.action === 'delete') return { action: 'delete', oldId: op.old_id, reason }
  if (op.action === 'update')
    return { action: 'update', oldId: op.old_id, statement: op.statement, reason, tags: op.tags, strength: op.strength }
  return { action: 'create', statement: op.statement, reason, tags: op.tags, strength: op.strength }
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 4)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'value'}: ${issue.message}`)
    .join('; ')
}

/** Validates one value; the action is matched case-insensitively. */
export function validateOp(value: unknown): { ok: true; op: RawOp } | { ok: false; reason: string } {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const action = (value as { action?: unknown }).action
    if (typeof action === 'string') value = { ...value, action: action.trim().toLowerCase() }
  }
  const result = OpSchema.safeParse(value)
  return result.success ? { ok: true, op: normalise(result.data) } : { ok: false, reason: describe(result.error) }
}

/** Whether the braces of a JSON-ish line close (honouring strings); an unclosed line is a truncated answer. */
function balanced(line: string): boolean {
  let depth = 0
  let inString: string | undefined
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === inString) inString = undefined
    } else if (ch === '"' || ch === "'") inString = ch
    else if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') depth--
  }
  return depth <= 0 && !inString
}

/** `tryRepair`, accepting only an object or array (jsonrepair turns any prose into a string). */
function repaired(text: string): ReturnType<typeof tryRepair> {
  const fixed = tryRepair(text)
  return fixed.ok && typeof fixed.value === 'object' && fixed.value !== null ? fixed : { ok: false }
}

/** Fence lines, comment lines (design §6.4) and lone brackets around a JSON Lines answer. */
const SKIP_LINE = /^(?:```|~~~|\/\/|#|[[\]],?$)/
/** A leading list marker a model may put before a line: `- `, `* `, `1. `. */
const LIST_MARKER = /^(?:[-*•]\s+|\d+[.)]\s+)/

/**
 * The operations in a model's answer. Reasoning blocks (`<think>`) are removed; an answer that is
 * one JSON array (possibly fenced) yields its elements; otherwise every line is read on its own.
 */
export function parseEvolutionAnswer(answer: string): ParsedAnswer {
  const result: ParsedAnswer = { ops: [], invalid: [], ignored: [], repaired: 0 }
  const cleaned = stripThinking(answer ?? '')
  const accept = (value: unknown, line: string, truncated: boolean) => {
    const values = Array.isArray(value) ? value : [value]
    for (const item of values) {
      const checked = validateOp(item)
      if (!checked.ok) result.invalid.push({ line, reason: checked.reason })
      // a statement cut off by the model's output limit must not become a memory
      else if (truncated && (checked.op.action === 'create' || checked.op.action === 'update'))
        result.invalid.push({ line, reason: 'the line is cut off' })
      else result.ops.push(checked.op)
    }
  }

  const unfenced = cleaned
    .split(/\r?\n/)
    .filter((line) => !/^\s*(?:```|~~~)/.test(line))
    .join('\n')
    .trim()
  if (unfenced.startsWith('[') && unfenced.endsWith(']')) {
    const whole = tryParse(unfenced)
    const value = whole.ok ? whole : repaired(unfenced)
    if (value.ok && Array.isArray(value.value)) {
      if (!whole.ok) result.repaired++
      accept(value.value, unfenced.slice(0, 200), false)
      return result
    }
  }

  for (const raw of cleaned.split(/\r?\n/)) {
    let line = raw.trim()
    if (!line || SKIP_LINE.test(line)) continue
    line = line.replace(LIST_MARKER, '')
    const first = line.search(/[{[]/)
    if (first < 0) {
      result.ignored.push(line)
      continue
    }
    line = line.slice(first).replace(/,\s*$/, '')
    const direct = tryParse(line)
    if (direct.ok) {
      accept(direct.value, line, false)
      continue
    }
    const fixed = repaired(line)
    if (fixed.ok) {
      result.repaired++
      accept(fixed.value, line, !balanced(line))
    } else {
      result.invalid.push({ line, reason: 'not JSON, even after repair' })
    }
  }
  return result
}

// ── from shown integers to rows ─────────────────────────────────────────────

/** An operation on real rows, in the order the model gave it. */
export type ResolvedOp =
  | { action: 'update'; old: GroupMemoryRow; statement: string; reason: string; tags?: string[]; strength?: number }
  | { action: 'delete'; old: GroupMemoryRow; reason: string }
  | { action: 'create'; statement: string; reason: string; tags?: string[]; strength?: number }

export interface Resolution {
  ops: ResolvedOp[]
  /** Shown memories that no update or delete touches (kept, explicitly or by silence). */
  kept: number
  rejected: { op: RawOp; reason: string }[]
}

/** The shown integer an id stands for, or undefined when it is not one ("uuid-1", "abc", 2.5). */
export function shownIndex(id: number | string): number | undefined {
  if (typeof id === 'number') return Number.isInteger(id) ? id : undefined
  const match = /^\s*#?\s*(\d{1,6})\s*$/.exec(id)
  return match ? Number(match[1]) : undefined
}

export const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim()

/**
 * Maps the model's ids back to the rows it was shown (`shown[0]` was id 1). Rejected: ids that were
 * not shown (a chat message cannot steer the model onto other memories), a second update/delete of
 * one memory (the first wins), and a create that repeats an existing statement or an earlier create.
 * An update that leaves the statement as it was is a keep.
 */
export function resolveOps(ops: RawOp[], shown: GroupMemoryRow[]): Resolution {
  const resolved: ResolvedOp[] = []
  const rejected: Resolution['rejected'] = []
  const touched = new Set<string>()
  const statements = shown.map((row) => row.statement)
  for (const op of ops) {
    if (op.action === 'create') {
      if (statements.some((s) => sameText(s, op.statement))) {
        rejected.push({ op, reason: 'the statement exists already' })
        continue
      }
      statements.push(op.statement)
      resolved.push(op)
      continue
    }
    const index = shownIndex(op.oldId)
    const row = index !== undefined && index >= 1 ? shown[index - 1] : undefined
    if (!row) {
      rejected.push({ op, reason: `id ${JSON.stringify(op.oldId).slice(0, 60)} was not shown` })
      continue
    }
    if (op.action === 'keep') continue
    if (touched.has(row.id)) {
      rejected.push({ op, reason: `memory ${index} is changed by an earlier line` })
      continue
    }
    if (op.action === 'update' && sameText(op.statement, row.statement)) continue
    touched.add(row.id)
    if (op.action === 'update') {
      resolved.push({ action: 'update', old: row, statement: op.statement, reason: op.reason, tags: op.tags, strength: op.strength })
    } else {
      resolved.push({ action: 'delete', old: row, reason: op.reason })
    }
  }
  return { ops: resolved, kept: shown.length - touched.size, rejected }
}
