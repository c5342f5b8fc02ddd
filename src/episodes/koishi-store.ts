import type { Context } from 'koishi'
import type { Scope } from '../scope'
import { dbWhere } from '../scope'
import type { EpisodeStore } from './store'
import type { Episode } from './table'

export class KoishiEpisodeStore implements EpisodeStore {
  constructor(private ctx: Context) {}

  async get(ids: string[]) {
    return ids.length ? this.ctx.database.get('memory_episode', { id: { $in: ids } }) : []
  }

  async upsert(episode: Episode) {
    await this.ctx.database.upsert('memory_episode', [episode])
  }

  async recent(scope: Scope, limit: number) {
    return this.ctx.database.get('memory_episode', dbWhere(scope), { limit, sort: { createdAt: 'desc' } })
  }

  async allIds() {
    return (await this.ctx.database.get('memory_episode', {}, ['id'])).map((row) => row.id)
  }

  async remove(ids: string[]) {
    if (!ids.length) return 0
    return (await this.ctx.database.remove('memory_episode', { id: { $in: ids } })).matched ?? 0
  }
}
