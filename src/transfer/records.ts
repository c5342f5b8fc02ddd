import { z } from 'zod'
import type { FactRow } from '../facts'
import type { GroupChangeRow, GroupMemoryRow } from '../group'
import type { EntityRow, ProfileRow, RelationRow } from '../knowledge'
import { ENTITY_TYPES } from '../knowledge'
import { cleanId, ID_MAX } from '../scope'
import { cleanText } from '../text/clean'
import { FIELD_MAX_BYTES, fitsField, JSON_FIELD_MAX_BYTES, utf8Bytes } from '../text/field-limit'
import type { TopicSummaryRow } from '../topic-summaries'
import type { TopicRow } from '../topics'

/**
 * The export format: JSON Lines, one record a line, `{"kind": …, "version": 1, "data": {…}}`. `data`
 * is the row as the database keeps it (times as ISO strings), so an export is complete and an import
 * re-creates the same rows. The row sits under `data` because several rows have a `version` of their
 * own (a fact's, a group memory's, a summary's).
 */

/** The format version written; a line of another version is reported, not guessed at. */
export const FORMAT_VERSION = 1

/** Every kind, in the order they are exported and imported (a row's references point to earlier kinds or its own). */
export const RECORD_KINDS = ['fact', 'group-memory', 'group-change', 'topic', 'summary', 'profile', 'entity', 'relation'] as const

export type RecordKind = (typeof RECORD_KINDS)[number]

/** Rows by kind. */
export interface RecordRows {
  fact: FactRow
  'group-memory': GroupMemoryRow
  'group-change': GroupChangeRow
  topic: TopicRow
  summary: TopicSummaryRow
  profile: ProfileRow
  entity: EntityRow
  relation: RelationRow
}

export type TransferRecord = { [K in RecordKind]: { kind: K; data: RecordRows[K] } }[RecordKind]

// ── validation ──────────────────────────────────────────────────────────────

/** A time as JSON carries it: an ISO string (what an export writes) or milliseconds. */
export const time = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'not a time' })
    return z.NEVER
  }
  return date
})
const optionalTime = time.nullish().transform((value) => value ?? null)
/**
 * Ids, scopes and names are written out as the stores keep them (`cleanId`) and free text is cleaned
 * (`cleanText`); both leave what an export wrote as it was. Ids are checked for length where they are
 * stored: one too long for its column gets a fresh id.
 */
const idText = (min: number) => z.string().min(min).max(ID_MAX).transform(cleanId)
const id = idText(1)
const ref = idText(0).default('')
const name = idText(1)
const optionalName = idText(0).default('')
/** The mark of a field longer than every database stores (`FIELD_MAX_BYTES`): the line is `too-long`. */
const TOO_LONG = 'too-long'
/** Free text, within `FIELD_MAX_BYTES` once cleaned. */
export const fieldText = z
  .string()
  .transform(cleanText)
  .superRefine((value, ctx) => {
    if (!fitsField(value))
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `${utf8Bytes(value)} bytes, at most ${FIELD_MAX_BYTES}`,
        params: { [TOO_LONG]: true },
      })
  })
const text = fieldText
/** Text that must say something. */
const said = fieldText.refine((value) => value.trim().length > 0, 'empty')
const optionalText = text.default('')
const count = z.number().int().min(0)
const unit = z.number().min(0).max(1)
/** A value kept in a `json` column, within `JSON_FIELD_MAX_BYTES` once encoded. */
const json = <T, I>(schema: z.ZodType<T, z.ZodTypeDef, I>) =>
  schema.superRefine((value, ctx) => {
    const bytes = utf8Bytes(JSON.stringify(value) ?? '')
    if (bytes > JSON_FIELD_MAX_BYTES)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `${bytes} bytes as JSON, at most ${JSON_FIELD_MAX_BYTES}`,
        params: { [TOO_LONG]: true },
      })
  })
const ids = json(z.array(idText(0)).max(10_000)).default([])

const fact = z.object({
  id,
  platform: name,
  guildId: optionalName,
  channelId: optionalName,
  userId: name,
  content: said,
  reason: optionalText,
  version: z.number().int().min(1).default(1),
  parentId: ref,
  sourceIds: ids,
  createdAt: time,
  updatedAt: time,
  validFrom: optionalTime,
  validTo: optionalTime,
  supersededBy: ref,
})

const groupMemory = z.object({
  id,
  platform: name,
  guildId: name,
  statement: said,
  version: z.number().int().min(1).default(1),
  parentId: ref,
  supersededBy: ref,
  changeSummary: optionalText,
  status: z.enum(['active', 'deprecated']),
  deprecatedReason: optionalText,
  statusBy: optionalName,
  tags: json(z.array(z.string().max(64)).max(100)).default([]),
  strength: unit.default(0.5),
  runId: optionalName,
  createdAt: time,
  updatedAt: time,
})

const groupChange = z.object({
  id,
  memoryId: ref,
  previousId: ref,
  platform: name,
  guildId: name,
  action: z.enum(['create', 'update', 'delete', 'restore', 'strength']),
  oldStatement: optionalText,
  newStatement: optionalText,
  reason: optionalText,
  version: count.default(1),
  runId: optionalName,
  // who approved a reviewed change; absent in older exports
  actor: idText(0).optional(),
  createdAt: time,
})

const topic = z.object({
  id,
  platform: name,
  guildId: optionalName,
  channelId: name,
  title: optionalName,
  keywords: json(z.record(z.number())).default({}),
  centroid: json(z.array(z.number()).max(8192)).default([]),
  centroidNorm: z.number().default(0),
  vectorCount: count.default(0),
  embedder: optionalName,
  messageCount: count.default(0),
  creatorId: optionalName,
  createdAt: time,
  updatedAt: time,
  lastMessageAt: time,
  active: z.boolean().default(false),
  archived: z.boolean().default(false),
})

const quality = z.object({
  coverage: unit,
  coherence: unit,
  relevance: unit,
  llmScore: unit.optional(),
  overall: unit,
})

const summary = z.object({
  id: z.string().max(ID_MAX).default(''),
  topicId: id,
  platform: name,
  guildId: optionalName,
  channelId: name,
  version: z.number().int().min(1),
  title: optionalName,
  summary: said,
  participants: json(z.array(z.string().max(ID_MAX)).max(1000)).default([]),
  firstMessageAt: time,
  lastMessageAt: time,
  messageCount: count.default(0),
  topicMessageCount: count.default(0),
  keywords: json(z.record(z.number())).default({}),
  quality: quality.default({ coverage: 0, coherence: 0, relevance: 0, overall: 0 }),
  fallback: z.boolean().default(false),
  segments: count.default(0),
  language: z.string().max(15).default(''),
  trigger: z.enum(['closed', 'count', 'schedule', 'manual']).default('manual'),
  model: optionalName,
  embedder: optionalName,
  createdAt: time,
})

const preference = z.object({
  key: name,
  value: text,
  confidence: unit,
  sourceIds: ids,
  validFrom: z.number(),
  validTo: z.number().nullable().default(null),
})

const profile = z.object({
  id: z.string().max(ID_MAX).default(''),
  platform: name,
  guildId: optionalName,
  userId: name,
  userName: optionalName,
  profileText: optionalText,
  preferences: json(z.array(preference).max(10_000)).default([]),
  traits: json(z.array(z.object({ name, confidence: unit, sourceIds: ids })).max(10_000)).default([]),
  pending: count.default(0),
  updatedAt: time,
  consolidatedAt: time,
})

const knowledgeScope = {
  platform: name,
  guildId: optionalName,
  userId: optionalName,
}

const entity = z.object({
  id,
  ...knowledgeScope,
  name: name,
  key: name,
  type: z.enum(ENTITY_TYPES as [RecordRows['entity']['type'], ...RecordRows['entity']['type'][]]),
  aliases: json(z.array(name).max(1000)).default([]),
  description: optionalText,
  confidence: unit.default(0.5),
  mentions: count.default(1),
  firstSeen: time,
  lastSeen: time,
  sourceIds: ids,
})

const relation = z.object({
  id,
  ...knowledgeScope,
  subjectId: id,
  predicate: name,
  objectId: id,
  confidence: unit.default(0.5),
  sourceIds: ids,
  validFrom: optionalTime,
  validTo: optionalTime,
  createdAt: time,
})

const SCHEMAS: { [K in RecordKind]: z.ZodType<RecordRows[K], z.ZodTypeDef, unknown> } = {
  fact,
  'group-memory': groupMemory,
  'group-change': groupChange,
  topic,
  summary,
  profile,
  entity,
  relation,
}

/** Why a line is not imported. `detail` is the validator's own words (English), for the one who fixes the file. */
export type LineProblem =
  | 'not-json'
  | 'unknown-format'
  | 'unknown-kind'
  | 'unsupported-version'
  | 'invalid'
  | 'too-long'
  | 'line-too-long'
  | 'foreign-reference'
  | 'missing-reference'
  | 'conflicting-duplicate'
  | 'mem0-no-user'
  | 'mem0-no-platform'

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: LineProblem; detail?: string }

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'value'}: ${issue.message}`)
    .join('; ')
}

/** A line the schema refused: `too-long` when a field is longer than the databases keep, else `invalid`. */
export function refused(error: z.ZodError): { ok: false; problem: LineProblem; detail: string } {
  const long = error.issues.filter((issue) => issue.code === z.ZodIssueCode.custom && issue.params?.[TOO_LONG])
  if (long.length) return { ok: false, problem: 'too-long', detail: describeIssues(new z.ZodError(long)) }
  return { ok: false, problem: 'invalid', detail: describeIssues(error) }
}

/** Whether a parsed line is one of ours (it names a `kind`). */
export function isOurs(value: unknown): value is { kind: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'kind' in value
}

/** Validates one of our lines: its kind, its format version and its row. */
export function checkRecord(value: { kind: unknown; version?: unknown; data?: unknown }): Checked<TransferRecord> {
  const kind = value.kind
  if (typeof kind !== 'string' || !(RECORD_KINDS as readonly string[]).includes(kind))
    return { ok: false, problem: 'unknown-kind', detail: String(kind).slice(0, 40) }
  if (value.version !== FORMAT_VERSION) return { ok: false, problem: 'unsupported-version', detail: String(value.version).slice(0, 20) }
  const parsed = SCHEMAS[kind as RecordKind].safeParse(value.data)
  if (!parsed.success) return refused(parsed.error)
  return { ok: true, value: { kind, data: parsed.data } as TransferRecord }
}

/**
 * One line of an export. The row is written as the import reads it (the kind's schema: its fields in
 * one order, defaults filled in), so the same rows give the same lines whichever store they came from;
 * a row the schema does not accept is written as it is (and reported when it is imported).
 */
export function recordLine(record: TransferRecord): string {
  const plain: unknown = JSON.parse(JSON.stringify(record.data))
  const checked = SCHEMAS[record.kind].safeParse(plain)
  return JSON.stringify({ kind: record.kind, version: FORMAT_VERSION, data: checked.success ? checked.data : plain })
}
