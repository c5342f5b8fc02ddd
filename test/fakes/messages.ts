import type { ChannelRef, Neighbours } from '../../src/messages/types'
import type { MessageStore } from '../../src/messages/store'
import { nearest, timelineOrder } from '../../src/messages/neighbours'
import type { MessageRow } from '../../src/messages/table'

const byTime = (a: MessageRow, b: MessageRow) => a.createdAt.getTime() - b.createdAt.getTime()
const inChannel = (row: { platform: string; channelId: string }, channel: ChannelRef) =>
  row.platform === channel.platform && row.channelId === channel.channelId

/** An in-memory `MessageStore`, insertion order kept for equal timestamps. */
export class MemoryMessages implements MessageStore {
  rows = new Map<string, MessageRow>()

  add(...rows: MessageRow[]) {
    for (const row of rows) this.rows.set(row.id, { ...row })
  }

  private all() {
    return [...this.rows.values()].sort(byTime)
  }

  async window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }) {
    return this.all()
      .filter((r) => inChannel(r, channel) && r.createdAt < options.before && (!options.since || r.createdAt >= options.since))
      .slice(-options.limit)
  }

  async around(channel: ChannelRef, times: Date[], turns: number): Promise<Neighbours[]> {
    const sorted = this.all()
      .filter((r) => inChannel(r, channel))
      .sort(timelineOrder)
    return times.map((time) => nearest(sorted, time.getTime(), turns))
  }

  async byMessageIds(channel: ChannelRef, messageIds: string[]) {
    return this.all().filter((r) => inChannel(r, channel) && messageIds.includes(r.messageId))
  }

  async byIds(ids: string[]) {
    return this.all().filter((r) => ids.includes(r.id))
  }

  async byTopic(topicId: string, options: { before?: Date; limit: number }) {
    const { before } = options
    return this.all()
      .filter((r) => r.topicId === topicId && (!before || r.createdAt < before))
      .slice(-options.limit)
  }

  async byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }) {
    return this.all()
      .filter((r) => inChannel(r, channel) && r.rootMessageId === rootMessageId && r.createdAt < options.before)
      .slice(-options.limit)
  }

  async setTopic(ids: string[], topicId: string) {
    for (const id of ids) {
      const row = this.rows.get(id)
      if (row) row.topicId = topicId
    }
  }
}
