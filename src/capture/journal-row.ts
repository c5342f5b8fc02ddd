import type { MessageRow } from '../messages'
import { messageRowId } from '../messages'
import { cleanId, ID_MAX } from '../scope'
import { cleanText } from '../text/clean'

const IDS = ['messageId', 'platform', 'guildId', 'channelId', 'userId', 'replyMessageId', 'rootMessageId', 'topicId'] as const
/** Ids a stored message cannot do without. */
const REQUIRED = new Set<string>(['messageId', 'platform', 'channelId'])

/**
 * A journal line as the row capture would have made: a journal is a file left on disk, so every field's
 * type is checked, ids and text are cleaned as capture cleans them (`cleanId`, `cleanText`) and ids
 * bounded (`ID_MAX`); the row's id is made again from its parts. A line that is no such row gives the reason.
 */
export function journalRow(value: unknown): { row: MessageRow } | { error: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'not a JSON object' }
  const line = value as Record<string, unknown>
  const ids = {} as Record<(typeof IDS)[number], string>
  for (const name of IDS) {
    const field = line[name] ?? (REQUIRED.has(name) ? undefined : '')
    if (typeof field !== 'string') return { error: `${name} is not a string` }
    if (REQUIRED.has(name) && !field) return { error: `${name} is empty` }
    ids[name] = cleanId(field)
  }
  if (typeof line.id !== 'string') return { error: 'id is not a string' }
  const id = messageRowId(ids.platform, ids.channelId, ids.messageId)
  // no id column is wider, and SQLite's engine fails for good on a query of many ids far over it
  for (const [name, value] of [['id', id], ...Object.entries(ids)])
    if (value.length > ID_MAX) return { error: `${name} is longer than ${ID_MAX} characters` }
  for (const name of ['userName', 'content'] as const) if (typeof line[name] !== 'string') return { error: `${name} is not a string` }
  if (line.role !== 'user' && line.role !== 'assistant') return { error: 'role is neither user nor assistant' }
  if (typeof line.isMentionBot !== 'boolean') return { error: 'isMentionBot is not a boolean' }
  if (line.isCommand !== undefined && typeof line.isCommand !== 'boolean') return { error: 'isCommand is not a boolean' }
  const createdAt = typeof line.createdAt === 'string' ? new Date(line.createdAt) : undefined
  if (!createdAt || Number.isNaN(createdAt.getTime())) return { error: 'createdAt is not a date' }
  return {
    row: {
      ...ids,
      id,
      userName: cleanText(line.userName as string),
      content: cleanText(line.content as string),
      role: line.role,
      isMentionBot: line.isMentionBot,
      isCommand: line.isCommand ?? false,
      createdAt,
    },
  }
}
