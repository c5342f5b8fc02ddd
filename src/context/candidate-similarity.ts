import { ByteLru } from '../core/lru'
import type { ChannelRef } from '../messages'
import type { ContextBuilderConfig, ContextBuilderDeps } from './builder-config'
import type { Candidate } from './candidates'
import type { ContextTarget } from './types'

/** The cap when none is given (a standalone builder, tests). */
const DEFAULT_CAP_BYTES = 4 * 2 ** 20

/** The embedding similarities of the candidates to the target; the candidates' vectors are kept across builds. */
export class CandidateSimilarity {
  /** By row id, the least recently used dropped past the cap; a vector costs its buffer and two objects. */
  private readonly vectors: ByteLru<Float32Array>

  constructor(
    private readonly deps: Pick<ContextBuilderDeps, 'embedder' | 'similarities' | 'counters' | 'logger'>,
    capBytes = DEFAULT_CAP_BYTES,
  ) {
    this.vectors = new ByteLru(capBytes, (vector) => 160 + vector.byteLength)
  }

  held(): { bytes: number; entries: number } {
    return this.vectors.held()
  }

  async embedTarget(target: ContextTarget): Promise<Float32Array | undefined> {
    if (!this.deps.embedder || !target.content.trim()) return undefined
    try {
      return (await this.deps.embedder.embed([target.content]))[0]
    } catch (error) {
      this.deps.counters.inc('context.embed-failed')
      this.deps.logger.debug('could not embed the target: %s', (error as Error).message)
      return undefined
    }
  }

  /**
   * Gives candidates without a similarity the one the search would give them, or embeds them (bounded),
   * so the semantic signal covers them too.
   */
  async fill(
    channel: ChannelRef,
    pool: Candidate[],
    vector: Float32Array | undefined,
    settings: Pick<ContextBuilderConfig, 'embedCandidates'>,
  ) {
    const { embedder } = this.deps
    if (!embedder || !vector || !settings.embedCandidates) return
    let missing = pool.filter((candidate) => candidate.similarity === undefined && candidate.row.content.trim())
    if (!missing.length) return
    const known = this.deps.similarities?.(
      channel,
      vector,
      missing.map((candidate) => candidate.row.id),
    )
    if (known) {
      missing.forEach((candidate, i) => (candidate.similarity = known[i]))
      missing = missing.filter((candidate) => candidate.similarity === undefined)
      if (!missing.length) return
    }
    const toEmbed = missing.filter((candidate) => !this.vectors.get(candidate.row.id)).slice(0, 256)
    if (toEmbed.length) {
      try {
        const vectors = await embedder.embed(toEmbed.map((candidate) => candidate.row.content))
        toEmbed.forEach((candidate, i) => this.vectors.set(candidate.row.id, vectors[i]))
      } catch (error) {
        this.deps.counters.inc('context.embed-failed')
        this.deps.logger.debug('could not embed candidates: %s', (error as Error).message)
      }
    }
    for (const candidate of missing) {
      const other = this.vectors.get(candidate.row.id)
      if (other && other.length === vector.length) candidate.similarity = dot(vector, other)
    }
  }
}

function dot(a: Float32Array, b: Float32Array) {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i]
  return sum
}
