import type { Context } from 'koishi'

/** `memory.reindex [table]`: rebuilds LanceDB tables from the database, table by table. */
export function registerReindexCommand(ctx: Context) {
  ctx.command('memory.reindex [table:string]', { authority: 4 }).action(async ({ session }, table) => {
    if (!session) return
    const tables = ctx.memory.indexTables()
    if (table && !tables.some((entry) => entry.table === table)) {
      return session.text('.unknown', [table, tables.map((entry) => entry.table).join(', ')])
    }
    await session.send(session.text('.start', [table ? 1 : tables.length]))
    try {
      await ctx.memory.reindex(table, (result) => {
        void session.send(session.text('.table', { ...result, rest: result.pending ? session.text('.pending') : '' }))
      })
    } catch (error) {
      return session.text('.failed', [(error as Error).message])
    }
    return session.text('.done')
  })
}
