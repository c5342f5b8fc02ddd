import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { GroupSources } from './store'
import type { GroupMessage, GroupRef, GroupSourceRow } from './types'

/** The first source row of a run: every run that recorded its sources has one. */
const firstOf = (runId: string) => `${runId}.0`

/** `GroupSources` in the Koishi database, and what a forget asks of it. */
export class KoishiGroupSources implements GroupSources {
  constructor(private ctx: Context) {}

  private get db() {
    return this.ctx.database
  }

  async record(runId: string, group: GroupRef, messages: Pick<GroupMessage, 'id' | 'createdAt'>[]) {
    const rows: GroupSourceRow[] = messages.map((message, n) => ({
      id: `${runId}.${n}`,
      runId,
      platform: group.platform,
      guildId: group.guildId,
      messageId: message.id,
      createdAt: message.createdAt,
    }))
    for (const part of chunks(rows)) await this.db.upsert('memory_group_source', part)
  }

  /** The runs that read one of `messageIds`, with their group. */
  async runsReading(messageIds: string[]): Promise<(GroupRef & { runId: string })[]> {
    const runs = new Map<string, GroupRef & { runId: string }>()
    for (const part of chunks([...new Set(messageIds)])) {
      const rows = await this.db.get('memory_group_source', { messageId: { $in: part } }, ['runId', 'platform', 'guildId'])
      for (const row of rows) runs.set(row.runId, { runId: row.runId, platform: row.platform, guildId: row.guildId })
    }
    return [...runs.values()]
  }

  /** Of `runIds`, those that recorded their sources, each with the time of the oldest message it read. */
  async recorded(runIds: string[]): Promise<Map<string, Date>> {
    const found = new Map<string, Date>()
    for (const part of chunks([...new Set(runIds.filter(Boolean))])) {
      const rows = await this.db.get('memory_group_source', { id: { $in: part.map(firstOf) } }, ['runId', 'createdAt'])
      for (const row of rows) found.set(row.runId, row.createdAt)
    }
    return found
  }

  /** Forgets which messages `runIds` read (once what they wrote is gone). */
  async remove(runIds: string[]) {
    for (const part of chunks([...new Set(runIds)])) await this.db.remove('memory_group_source', { runId: { $in: part } })
  }
}
