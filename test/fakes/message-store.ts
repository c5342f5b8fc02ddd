import type { MessageRow } from '../../src/messages/table'
import type { ChannelRef, Neighbours } from '../../src/messages/types'
import type { MessageStore } from '../../src/messages/store'
import { firstAtOrAfter, nearest, timelineOrder } from '../../src/messages/neighbours'

/**
 * A `MessageStore` over arrays in memory, each channel kept in time order (fast enough for the quick
 * benchmark), that also serves a `MessageIndex` (`indexableIds`). Unlike `MemoryMessages` it keeps the
 * rows it is given, not copies. Every list is oldest first.
 */
export class InMemoryMessageStore implements MessageStore {
  private channels = new Map<string, MessageRow[]>()
  private rows = new Map<string, MessageRow>()

  add(...rows: MessageRow[]): void {
    for (const row of rows) {
      const old = this.rows.get(row.id)
      const list = this.list(row)
      if (old) list.splice(list.indexOf(old), 1)
      this.rows.set(row.id, row)
      // keep each channel sorted by time; appends in time order stay O(1)
      let i = list.length
      while (i > 0 && list[i - 1].createdAt > row.createdAt) i--
      list.splice(i, 0, row)
    }
  }

  async indexableIds(): Promise<string[]> {
    return [...this.rows.values()].filter((row) => !row.isCommand).map((row) => row.id)
  }

  get size(): number {
    return this.rows.size
  }

  async window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }): Promise<MessageRow[]> {
    const list = this.channels.get(key(channel)) ?? []
    const out: MessageRow[] = []
    for (let i = firstAtOrAfter(list, options.before.getTime()) - 1; i >= 0 && out.length < options.limit; i--) {
      if (options.since && list[i].createdAt < options.since) break
      out.push(list[i])
    }
    return out.reverse()
  }

  async around(channel: ChannelRef, times: Date[], turns: number): Promise<Neighbours[]> {
    const sorted = [...(this.channels.get(key(channel)) ?? [])].sort(timelineOrder)
    return times.map((time) => nearest(sorted, time.getTime(), turns))
  }

  async byMessageIds(channel: ChannelRef, messageIds: string[]): Promise<MessageRow[]> {
    const wanted = new Set(messageIds)
    return (this.channels.get(key(channel)) ?? []).filter((row) => wanted.has(row.messageId))
  }

  async byIds(ids: string[]): Promise<MessageRow[]> {
    return sortByTime(ids.flatMap((id) => this.rows.get(id) ?? []))
  }

  async byTopic(topicId: string, options: { before?: Date; limit: number }): Promise<MessageRow[]> {
    const { before } = options
    const rows = [...this.rows.values()].filter((row) => row.topicId === topicId && (!before || row.createdAt < before))
    return sortByTime(rows).slice(-options.limit)
  }

  async byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }): Promise<MessageRow[]> {
    const rows = (this.channels.get(key(channel)) ?? []).filter(
      (row) => row.rootMessageId === rootMessageId && row.createdAt < options.before,
    )
    return rows.slice(-options.limit)
  }

  async setTopic(ids: string[], topicId: string): Promise<void> {
    for (const id of ids) {
      const row = this.rows.get(id)
      if (row) row.topicId = topicId
    }
  }

  private list(channel: ChannelRef): MessageRow[] {
    const k = key(channel)
    let list = this.channels.get(k)
    if (!list) this.channels.set(k, (list = []))
    return list
  }
}

function key(channel: ChannelRef) {
  return `${channel.platform}\u0000${channel.channelId}`
}

function sortByTime(rows: MessageRow[]) {
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
}
