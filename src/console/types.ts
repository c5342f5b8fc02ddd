/**
 * What the console's Memory page and the plugin say to each other over the console's socket: plain JSON,
 * times as epoch milliseconds. The client (`client/`) imports these types only.
 */
import type { DiffPart } from './diff'
import type { CallKind, SeriesPoint } from './series'
import type { GroupRef, UserRef } from '../scope'

export type { CallKind, DiffPart, GroupRef, SeriesPoint, UserRef }

/** Every answer: a value, or an error the page words in its language (`errors.<code>` of its locale). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string; detail?: string }

/** The authorities the page's parts need (each at least the page's own). */
export interface Authorities {
  page: number
  people: number
  groups: number
  health: number
  transfer: number
}

/** What the page learns when it loads (the console's entry data, per client). */
export interface EntryData {
  authority: Authorities
}

// ── people ──────────────────────────────────────────────────────────────────

export interface UserHit extends UserRef {
  name: string
  messages: number
  lastSeen: number
  /** Guilds they spoke in; `''` is their private chat. */
  guilds: string[]
  /** Current facts. */
  facts: number
}

export interface FactView {
  id: string
  guildId: string
  channelId: string
  content: string
  reason: string
  version: number
  parentId: string
  supersededBy: string
  current: boolean
  createdAt: number
  updatedAt: number
  validFrom: number
  validTo: number | null
  sourceIds: string[]
  /** The change from the version it replaced (`parentId`), when that version is listed too. */
  diff?: DiffPart[]
}

export interface MessageView {
  id: string
  guildId: string
  channelId: string
  userId: string
  userName: string
  role: string
  content: string
  createdAt: number
}

export interface ProfileView {
  guildId: string
  userName: string
  profileText: string
  preferences: { key: string; value: string; current: boolean }[]
  traits: string[]
  updatedAt: number
}

export interface EntityView {
  id: string
  guildId: string
  userId: string
  name: string
  type: string
  aliases: string[]
  description: string
  mentions: number
  lastSeen: number
}

export interface UserDetails {
  user: UserRef
  name: string
  /** Facts, current and closed, newest first. */
  facts: FactView[]
  /** All facts, when more than the page shows. */
  total: number
  /** The messages the facts came from, by id. */
  sources: Record<string, MessageView>
  profiles: ProfileView[]
  entities: EntityView[]
  /** What of theirs waits to be memorised: lines of dialogues not ended, when the last ends (ms), ended dialogues in the job. */
  waiting: { messages: number; dueAt: number | null; memorising: number }
}

// ── groups ──────────────────────────────────────────────────────────────────

export interface GroupHit extends GroupRef {
  /** The newest message said there. */
  newest: number
  /** Active memories. */
  memories: number
  /** Evolution mode when the review queue exists. */
  mode?: string
}

/** A group memory as the group API shows it. */
export interface GroupMemoryView {
  memory_id: string
  statement: string
  version: number
  created_at: string
  updated_at: string
  parent_id: string | null
  status: 'active' | 'deprecated'
  superseded_by: string | null
  change_summary: string
  deprecated_reason: string
  tags: string[]
  strength: number
}

export interface GroupVersionView {
  version: number
  memory_id: string
  statement: string
  status: string
  change_summary: string
  created_at: string
  /** The change from the version before (none for version 1). */
  diff: DiffPart[]
}

export interface GroupChangeView {
  timestamp: string
  action: string
  memory_id: string
  old_statement: string
  new_statement: string
  change_reason: string
  version: number
  /** An update's change from the old statement to the new. */
  diff?: DiffPart[]
}

export interface TopicView {
  id: string
  channelId: string
  title: string
  active: boolean
  messageCount: number
  lastMessageAt: number
  keywords: [string, number][]
  summary?: {
    version: number
    versions: number
    summary: string
    keywords: [string, number][]
    quality: { coverage: number; coherence: number; relevance: number; llmScore?: number; overall: number }
    participants: string[]
    fallback: boolean
    model: string
    createdAt: number
  }
}

export interface EvolutionState {
  running: boolean
  startedAt: number
  finishedAt?: number
  /** The evolution's status (`evolved`, `no-new-messages`, `no-llm`, `busy`, …) and what it changed. */
  result?: {
    status: string
    message?: string
    stats: { kept: number; updated: number; created: number; deleted: number }
    input: { memories: number; messages: number }
    issues: number
  }
  error?: string
}

// ── health ──────────────────────────────────────────────────────────────────

export interface ProviderView {
  /** What the setting names. */
  configured: string
  /** What is in use. */
  used: string
  /** Why not the configured one (`no-key`, `failed`, …). */
  fallback?: string
  detail?: string
}

export interface HealthView {
  embedder: ProviderView & { id: string }
  llm: ProviderView & { id: string }
  index: { used: string; lanceFailure?: string }
  breakers: { part: string; state: string }[]
  queue: number
  captureBuffer: number
  outbox: number
  dialogues: number
  facts: number
  /** The memory budget (`store.memoryMB`) and what each cache holds against its share, in bytes. */
  memory: { budgetBytes: number; usedBytes: number; consumers: { name: string; capBytes: number; bytes: number; entries: number }[] }
  tables: { table: string; name: string; rows: number | null; optimizedAt: number | null }[]
  series: SeriesPoint[]
  /** Model-call spend of today per group (per user in a private chat): the owners that spent or were refused anything. */
  budgets: BudgetView[]
  sampleSeconds: number
  /** Since when the series runs (the plugin's start). */
  since: number
}

/** A group's (or a private chat's user's) model budget and what it spent today. */
export interface BudgetView {
  platform: string
  guildId: string
  /** The user of a private chat; '' for a group. */
  userId: string
  day: string
  /** Calls a day; null: no limit. */
  calls: number | null
  /** Prompt tokens a reply; null: no limit beyond the context's own. */
  tokens: number | null
  /** Whether the owner has limits of its own (else the global default). */
  own: boolean
  spentCalls: number
  spentTokens: number
  /** Calls refused today: the offline rules did the work. */
  offline: number
  /** The day's calls are spent: the offline rules work there until the day ends. */
  exhausted: boolean
}

// ── transfer ────────────────────────────────────────────────────────────────

export type ExportChoice = { kind: 'all' } | { kind: 'user'; user: UserRef } | { kind: 'group'; group: GroupRef }

export interface ExportView {
  fileName: string
  text: string
  total: number
  counts: Record<string, number>
}

export interface ImportView {
  formats: { ours: number; mem0: number }
  counts: Record<string, { imported: number; skipped: number }>
  renamed: number
  /** References left out because they named nothing stored or in the file. */
  unlinked: number
  bad: { line: number; problem: string; detail?: string }[]
  layout: string
}

// ── moderation ──────────────────────────────────────────────────────────────

/** A proposal of a group's review queue (`ctx.memory.reviewQueue`). */
export interface PendingView {
  id: string
  action: 'update' | 'create' | 'delete'
  /** What it would write ('' for a delete). */
  statement: string
  /** The memory's text when the plan was made ('' for a create). */
  oldStatement: string
  reason: string
  status: string
  createdAt: number
  expiresAt: number
}
