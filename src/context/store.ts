import type { ContextRecord, ReplyTraceRecord } from './table'

/** Where the context log and the reply traces live (tables `memory_context` and `memory_reply_trace`). */
export interface ContextLogStore {
  add(record: ContextRecord): Promise<void>
  /** Sets the reply of the newest record of a trigger message. */
  setReply(platform: string, channelId: string, triggerMessageId: string, reply: string): Promise<void>
  /** Records created at or after `since`. */
  since(since: Date): Promise<ContextRecord[]>
  /** Drops records older than `before`, and the oldest beyond `keep`. Returns how many went. */
  prune(before: Date, keep: number): Promise<number>
  /** Drops the records and traces a user's messages triggered; how many records went. */
  removeUser(platform: string, userId: string): Promise<number>
  /** Drops the records of these channels that showed one of the messages; how many went. */
  removeShowing(platform: string, channelIds: string[], messageIds: string[]): Promise<number>
  addTrace(record: ReplyTraceRecord): Promise<void>
  /** The newest trace of a channel, or of one trigger message there. */
  lastTrace(platform: string, channelId: string, triggerMessageId?: string): Promise<ReplyTraceRecord | undefined>
  tracesSince(since: Date): Promise<ReplyTraceRecord[]>
}
