import type { TopicRow } from './table'
import type { ChannelRef } from '../messages'

/** Where topics live (the Koishi table `memory_topic`). */
export interface TopicStore {
  get(id: string): Promise<TopicRow | undefined>
  /** Active, unarchived topics of a channel, most recently active first. */
  active(channel: ChannelRef, limit: number): Promise<TopicRow[]>
  /** Topics of a channel, active or not, most recently active first. */
  list(channel: ChannelRef, limit: number, offset?: number): Promise<TopicRow[]>
  create(row: TopicRow): Promise<void>
  update(id: string, patch: Partial<TopicRow>): Promise<void>
  remove(id: string): Promise<void>
  /**
   * Closes (active = false) the active topics whose last message is older than `before`, at most
   * `limit` of them, oldest first; returns them as closed.
   */
  closeIdle(before: Date, limit: number): Promise<TopicRow[]>
}
