import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { MessageRow } from './table'
import type { ChannelRef } from './types'

/**
 * How far each channel's messages have been handed to the post-dialogue chain. What was said after the
 * watermark waits to be memorised; after a restart it is read back from the message table, so a
 * restart loses no dialogue.
 */
export interface WatermarkRow {
  /** `platform:channelId`. */
  id: string
  platform: string
  channelId: string
  /** Creation time of the newest user message handed over. */
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
      until: 'timestamp',
    },
    { primary: 'id' },
  )
}

type Channel = Pick<ChannelRef, 'platform' | 'channelId'>

const markId = (channel: Channel) => `${channel.platform}:${channel.channelId}`

/** Watermarks and the messages past them, on the Koishi database. */
export class KoishiWatermarks {
  constructor(private readonly ctx: Context) {}

  /** Moves a channel's watermark forward to `until` (never back). */
  async advance(channel: Channel, until: Date): Promise<void> {
    const id = markId(channel)
    const [row] = await this.ctx.database.get('memory_watermark', { id })
    if (row && row.until >= until) return
    await this.ctx.database.upsert('memory_watermark', [{ id, platform: channel.platform, channelId: channel.channelId, until }])
  }

  /**
   * What users said since their channel's watermark (or since `since`, when newer or when it has none), no
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
    // a message in the same second as the watermark is read back too (chat platforms stamp whole seconds):
    // memorising it again adds nothing
    const waiting = said.filter((row) => !marks.has(markId(row)) || row.createdAt >= marks.get(markId(row))!)
    const answers: MessageRow[] = []
    for (const part of chunks(waiting.map((row) => row.messageId))) {
      answers.push(...(await this.ctx.database.get('memory_message', { role: 'assistant', replyMessageId: { $in: part } })))
    }
    const asked = new Set(waiting.map((row) => `${row.platform}:${row.channelId}:${row.messageId}`))
    const replies = answers.filter((row) => asked.has(`${row.platform}:${row.channelId}:${row.replyMessageId}`))
    return [...waiting, ...replies].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }
}
