import type { Scope, SpeakerRef } from '../scope'
import type { MessageRow } from '../messages'
import type { IndexKind, IndexSyncDeps } from '../store/index-sync'
import { IndexedTable } from '../store/index-sync'
import type { EpisodeStore } from './store'
import type { Episode } from './table'

/**
 * Episodic memory (design §2.5): every exchange of a user with the bot — the user's message and
 * the bot's reply — is one episode. Episodes are rows of the database (`EpisodeStore`, the source of
 * truth) and are indexed in the LanceDB table `episodes` (text `User: … / Assistant: …`, the user as
 * `user_id`). `recall` returns the user's most recent exchanges plus the most similar ones to the
 * query, each exchange once, oldest first. A failing index or embedder leaves only the recent ones.
 */

export const EPISODES_TABLE = 'episodes'

export interface RecalledEpisode extends Episode {
  /** Why it was recalled. */
  reason: 'recent' | 'similar' | 'both'
  /** Cosine similarity to the query, for similar ones. */
  similarity?: number
}

export interface EpisodicDeps extends IndexSyncDeps {
  store: EpisodeStore
  /** The LanceDB table, when not `episodes`. */
  table?: string
}

export function episodeText(episode: Pick<Episode, 'userText' | 'botText'>): string {
  return `User: ${episode.userText}\nAssistant: ${episode.botText}`
}

/** In a group, the user's exchanges in that group; in a private chat, that chat's. */
export function episodeScope(episode: SpeakerRef): Scope {
  return episode.guildId
    ? { platform: episode.platform, userId: episode.userId, guildId: episode.guildId }
    : { platform: episode.platform, userId: episode.userId, guildId: '', channelId: episode.channelId }
}

export function episodeIndexKind(store: Pick<EpisodeStore, 'get' | 'allIds'>): IndexKind<Episode> {
  return {
    table: EPISODES_TABLE,
    name: 'episodes',
    fields: (episode) => ({
      id: episode.id,
      text: episodeText(episode),
      platform: episode.platform,
      user_id: episode.userId,
      guild_id: episode.guildId,
      channel_id: episode.channelId,
      created_at: episode.createdAt.getTime(),
    }),
    load: (ids) => store.get(ids),
    allIds: () => store.allIds(),
  }
}

export class EpisodicMemory {
  readonly indexed: IndexedTable<Episode>

  constructor(private deps: EpisodicDeps) {
    this.indexed = new IndexedTable(deps, episodeIndexKind(deps.store), deps.table)
  }

  get table(): string {
    return this.indexed.table
  }

  /**
   * Records that the bot answered `user` with `bot` (several replies to one message join one
   * episode). The database row is written first; indexing failures are counted
   * (`episodes.index-failed`) and wait in the outbox. Never throws past the database write.
   */
  async record(user: MessageRow, bot: Pick<MessageRow, 'content'>): Promise<Episode | undefined> {
    if (user.isCommand || !user.content.trim() || !bot.content.trim()) return undefined
    const [existing] = await this.deps.store.get([user.id])
    const episode: Episode = existing
      ? { ...existing, botText: `${existing.botText}\n${bot.content.trim()}` }
      : {
          id: user.id,
          platform: user.platform,
          guildId: user.guildId,
          channelId: user.channelId,
          userId: user.userId,
          userName: user.userName,
          userMessageId: user.messageId,
          userText: user.content.trim(),
          botText: bot.content.trim(),
          createdAt: user.createdAt,
        }
    await this.deps.store.upsert(episode)
    this.deps.counters.inc('episodes.recorded')
    await this.index([episode])
    return episode
  }

  /** Indexes episodes; what fails waits in the outbox (and is counted). Returns how many were indexed now. */
  async index(episodes: Episode[]): Promise<number> {
    if (!episodes.length) return 0
    if (await this.indexed.put(episodes)) return episodes.length
    this.deps.counters.inc('episodes.index-failed', episodes.length)
    return 0
  }

  /**
   * The user's `recent` newest exchanges (default 3) and the `similar` exchanges nearest to `query`
   * (default 3) within `scope`, each once, oldest first: a near exchange that is also recent is
   * marked `both` and the next nearest takes its place. Never throws.
   */
  async recall(scope: Scope, query: string, options: { recent?: number; similar?: number } = {}): Promise<RecalledEpisode[]> {
    const recentCount = options.recent ?? 3
    const similarCount = options.similar ?? 3
    const { store, counters, logger } = this.deps
    const [recent, similar] = await Promise.all([
      recentCount > 0
        ? store.recent(scope, recentCount).catch((error) => {
            logger.debug('recent episodes unavailable: %s', (error as Error).message)
            return [] as Episode[]
          })
        : Promise.resolve([] as Episode[]),
      similarCount > 0 && query.trim()
        ? (async () => {
            try {
              // enough hits that `similar` remain once those that are also recent are set aside
              const hits = await this.indexed.search(query, scope, similarCount + recentCount)
              const rows = new Map((await store.get(hits.map((hit) => hit.id))).map((episode) => [episode.id, episode]))
              return hits.flatMap((hit) => {
                const episode = rows.get(hit.id)
                return episode ? [{ episode, similarity: hit.similarity }] : []
              })
            } catch (error) {
              counters.inc('episodes.recall-failed')
              logger.debug('similar episodes unavailable: %s', (error as Error).message)
              return []
            }
          })()
        : Promise.resolve([]),
    ])
    const out = new Map<string, RecalledEpisode>()
    for (const episode of recent) out.set(episode.id, { ...episode, reason: 'recent' })
    let added = 0
    for (const { episode, similarity } of similar) {
      if (added >= similarCount) break
      const seen = out.get(episode.id)
      if (seen) {
        seen.reason = 'both'
        seen.similarity = similarity
        continue
      }
      out.set(episode.id, { ...episode, reason: 'similar', similarity })
      added++
    }
    return [...out.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  /** Removes episodes (their messages were erased). */
  async remove(ids: string[]): Promise<number> {
    if (!ids.length) return 0
    const removed = await this.deps.store.remove(ids)
    await this.indexed.remove(ids)
    return removed
  }
}
