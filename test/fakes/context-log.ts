import type { ContextLogStore } from '../../src/context/store'
import type { ContextRecord, ReplyTraceRecord } from '../../src/context/table'

/** An in-memory `ContextLogStore`. */
export class InMemoryContextLogStore implements ContextLogStore {
  records: ContextRecord[] = []
  async add(record: ContextRecord) {
    this.records.push({ ...record })
  }
  async setReply(platform: string, channelId: string, triggerMessageId: string, reply: string) {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const record = this.records[i]
      if (record.platform === platform && record.channelId === channelId && record.triggerMessageId === triggerMessageId) {
        record.reply = reply
        return
      }
    }
  }
  async since(since: Date) {
    return this.records.filter((record) => record.createdAt >= since)
  }
  async prune(before: Date, keep: number) {
    const length = this.records.length + this.traces.length
    this.records = this.records.filter((record) => record.createdAt >= before)
    if (this.records.length > keep) this.records = this.records.slice(-keep)
    this.traces = this.traces.filter((record) => record.createdAt >= before)
    if (this.traces.length > keep) this.traces = this.traces.slice(-keep)
    return length - this.records.length - this.traces.length
  }
  traces: ReplyTraceRecord[] = []
  async addTrace(record: ReplyTraceRecord) {
    this.traces.push({ ...record })
  }
  async lastTrace(platform: string, channelId: string, triggerMessageId?: string) {
    return [...this.traces]
      .reverse()
      .find(
        (record) =>
          record.platform === platform &&
          record.channelId === channelId &&
          (!triggerMessageId || record.triggerMessageId === triggerMessageId),
      )
  }
  async tracesSince(since: Date) {
    return this.traces.filter((record) => record.createdAt >= since)
  }
  async removeUser(platform: string, userId: string) {
    const before = this.records.length
    this.records = this.records.filter((record) => record.platform !== platform || record.userId !== userId)
    this.traces = this.traces.filter((record) => record.platform !== platform || record.userId !== userId)
    return before - this.records.length
  }
  async removeShowing(platform: string, channelIds: string[], messageIds: string[]) {
    const before = this.records.length
    const showing = (record: ContextRecord) =>
      record.platform === platform && channelIds.includes(record.channelId) && record.chosenIds.some((id) => messageIds.includes(id))
    this.records = this.records.filter((record) => !showing(record))
    return before - this.records.length
  }
}
