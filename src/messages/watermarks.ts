import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { MessageRow } from './table'

/**
 * How far each user's messages in a channel have been handed to the post-dialogue chain. What a user
 * said after their watermark waits to be memorised; after a restart it is read back from the message
 * table, so a restart loses no dialogue.
 */
export interface WatermarkRow {
  /** `platform:channelId:userId`. */
  id: string
  platform: string
  channelId: string
  userId: string
  /** Creation time of the newest message handed over. */
  until: Date
}

declare module 'koishi' {
  interface Tables {
    memory_watermark: WatermarkRow
  }
}

export function defineWatermarkTable(ctx: Context) {
  ctx.model.extend(
    'memory_watermark',
    {
      id: 'string(255)',
      platform: 'string(63)',
      channelId: 'string(127)',
      userId: 'string(127)',
      until: 'timestamp',
    },
    { primary: 'id' },
  )
}

export interface Speaker {
  platform: string
  channelId: string
  userId: string
}

const markId = (speaker: Speaker) => `${speaker.platform}:${speaker.channelId}:${speaker.userId}`

/** Watermarks and the messages past them, on the Koishi database. */
export class KoishiWatermarks {
  constructor(private readonly ctx: Context) {}

  /** Moves a speaker's watermark forward to `until` (never back). */
  async advance(speaker: Speaker, until: Date): Promise<void> {
    const id = markId(speaker)
    const [row] = await this.ctx.database.get('memory_watermark', { id })
    if (row && row.until >= until) return
    await this.ctx.database.upsert('memory_watermark', [{ id, ...pick(speaker), until }])
  }

  /**
   * What users said since their watermark (or since `since`, when newer or when they have none), no
   * commands, oldest first, with the bot's answers to those messages: the dialogues that still wait.
   */
  async unmemorised(since: Date, limit: number): Promise<MessageRow[]> {
    const said = await this.ctx.database.get(
      'memory_message',
      { role: 'user', isCommand: false, createdAt: { $gte: since } },
      { sort: { createdAt: 'asc' }, limit },
    )
    if (!said.length) return []
    const marks = new Map<string, Date>()
    for (const part of chunks([...new Set(said.map((row) => markId(row)))])) {
      for (const mark of await this.ctx.database.get('memory_watermark', { id: { $in: part } })) marks.set(mark.id, mark.until)
    }
    const waiting = said.filter((row) => !marks.has(markId(row)) || row.createdAt > marks.get(markId(row))!)
    const answers: MessageRow[] = []
    for (const part of chunks(waiting.map((row) => row.messageId))) {
      answers.push(...(await this.ctx.database.get('memory_message', { role: 'assistant', replyMessageId: { $in: part } })))
    }
    const asked = new Set(waiting.map((row) => `${row.platform}:${row.channelId}:${row.messageId}`))
    const replies = answers.filter((row) => asked.has(`${row.platform}:${row.channelId}:${row.replyMessageId}`))
    return [...waiting, ...replies].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  /** Forgets a user's watermarks (`forget --all`). */
  async remove(platform: string, userId: string): Promise<void> {
    await this.ctx.database.remove('memory_watermark', { platform, userId })
  }
}

function pick(speaker: Speaker): Speaker {
  return { platform: speaker.platform, channelId: speaker.channelId, userId: speaker.userId }
}
