import type { EpisodeStore } from '../../src/episodes/store'
import type { Episode } from '../../src/episodes/table'
import type { Scope } from '../../src/scope'

/** An in-memory `EpisodeStore`. */
export class InMemoryEpisodeStore implements EpisodeStore {
  rows = new Map<string, Episode>()
  async get(ids: string[]) {
    return ids.flatMap((id) => this.rows.get(id) ?? [])
  }
  async upsert(episode: Episode) {
    this.rows.set(episode.id, { ...episode })
  }
  async recent(scope: Scope, limit: number) {
    return [...this.rows.values()]
      .filter(
        (row) =>
          (scope.platform === undefined || row.platform === scope.platform) &&
          (scope.userId === undefined || row.userId === scope.userId) &&
          (scope.guildId === undefined || row.guildId === scope.guildId) &&
          (scope.channelId === undefined || row.channelId === scope.channelId),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, limit)
  }
  async allIds() {
    return [...this.rows.keys()]
  }
  async remove(ids: string[]) {
    return ids.filter((id) => this.rows.delete(id)).length
  }
}
