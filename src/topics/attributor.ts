import { cosine } from '../providers/vectors'
import { randomBytes } from 'node:crypto'
import type { Embedder } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { ChannelRef, MessageRow, MessageStore } from '../messages'
import type { TopicRow } from './table'
import { isLowSignal, keywordTitle, mergeKeywords } from './keywords'
import { topicText } from '../text/topic-words'
import type { TopicCandidate, TopicJudge } from './judge'
import type { TopicStore } from './store'
import { definedOnly } from '../core/defined'

/** Similarity thresholds of attribution (cosine between a message and a topic centroid). */
export interface TopicThresholds {
  /** At or above: join the most similar topic. */
  join: number
  /** At or above (and below `join`): the LLM chooses among the closest topics, or the best is joined without one. */
  low: number
}

/** The design's thresholds (design §2.2), meant for semantic embedding models. */
export const SEMANTIC_THRESHOLDS: TopicThresholds = { join: 0.7, low: 0.5 }

/**
 * For the lexical offline embedder (`offline-ngram-*`), which matches words, not meanings: two lines
 * of one conversation share few words, so its similarities run far lower than a semantic model's.
 * Measured by interleaving real dialogues (each one a known topic) in bursts of 1–3 lines and
 * attributing every line, comparing with the stop-word-free text `lexicalTopicText` embeds:
 * - cosine of a line with its own dialogue's running centroid, median 0.145 (Chinese, MADial-Bench)
 *   and 0.203 (English, LoCoMo); with the other dialogue's, 0.036 and 0.153.
 * - with design §2.2's 0.7 / 0.5 nearly every line opens a topic: 8.7 topics per 10-line Chinese
 *   dialogue, 21 per 44-line English session.
 * - rules mode at 0.1 (two Chinese dialogues at once): 82 % of a line's topic-mates come from its own
 *   dialogue (B³ precision), 2.4 topics per dialogue; at 0.05: 74 %, 1.4 topics.
 * - with an LLM choosing in the 0.1–0.3 band (an oracle standing in for it): precision 98 % for
 *   Chinese and 84 % for English, the LLM asked for about half of the lines.
 * English small talk (LoCoMo sessions) is hardly separable by words at all (precision 56 % in rules
 * mode, 50 % being chance): configure a real embedding model for English group chats.
 */
export const LEXICAL_THRESHOLDS: TopicThresholds = { join: 0.3, low: 0.1 }

/** Default thresholds for an embedder: lexical ones (the offline embedder) match words, not meanings. */
export function defaultTopicThresholds(embedder: Pick<Embedder, 'lexical'>): TopicThresholds {
  return embedder.lexical ? { ...LEXICAL_THRESHOLDS } : { ...SEMANTIC_THRESHOLDS }
}

/** The message with its stop words blanked out (`topicText`), or the message itself when nothing is left. */
export function lexicalTopicText(content: string): string {
  return topicText(content) || content
}

/**
 * How a message found its topic:
 * - `reply`: it replies to a message of that topic;
 * - `joined`: its vector is close to the topic's centroid (or, with no LLM or when the LLM failed,
 *   it was the closest in the uncertain band);
 * - `judged`: the LLM chose the topic among the closest ones;
 * - `continued`: the message says too little to place by its words (哈哈 / ok / 👍 / 我也是), so it
 *   went with its author's recent topic, or else the channel's most recently active one;
 * - `new`: it opened a topic.
 */
export type AttributionHow = 'reply' | 'joined' | 'judged' | 'continued' | 'new'

export interface Attribution {
  topicId: string
  how: AttributionHow
  /** Similarity with the chosen topic's centroid, when one was computed. */
  similarity?: number
}

export interface TopicAttributorOptions {
  topics: TopicStore
  messages: MessageStore
  embedder: Embedder
  /** The LLM judge; without one (the offline "rules" mode) the closest topic above `low` is joined. */
  judge?: TopicJudge
  /** Default: `defaultTopicThresholds(embedder)`. */
  thresholds?: Partial<TopicThresholds>
  /** A topic idle this long is not joined by similarity any more (and `closeIdleTopics` closes it). Default 1 h. */
  idleMs?: number
  /** A low-signal message goes with its author's topic when they spoke within this time. Default 10 min. */
  followMs?: number
  /**
   * Added to the similarity of the topic the author was in within `followMs`: people tend to
   * stay in their own thread. Default 0.05 for the lexical embedder and 0.03 for others (ranks only
   * near-ties differently; a clearly closer topic still wins).
   */
  authorBonus?: number
  /** Active topics of a channel compared with a message, most recent first. Default 20. */
  maxActive?: number
  /** Topics shown to the judge. Default 3. */
  judgeCandidates?: number
  /** Recent messages shown per topic. Default 5. */
  judgeMessages?: number
  /**
   * The centroid averages at most this many recent vectors: past it, each new message counts as
   * 1/window (an exponential moving average), so a long topic still follows its drift. Default 50.
   */
  centroidWindow?: number
  /**
   * What is embedded for attribution. Default for the lexical offline embedder: the message with
   * its stop words blanked out (`topicText`), since shared function words (我 / 你 / the / and) otherwise make every
   * pair of chat lines look alike; a vector passed to `attribute` is then not used. Default for other
   * embedders: the message as it is, and a passed vector is used.
   */
  topicText?: (content: string) => string
  counters?: Counters
  logger?: Logger
  now?: () => Date
  newId?: () => string
}

interface Scored {
  topic: TopicRow
  similarity: number
  /** Similarity plus the author bonus: what is ranked and compared with the thresholds. */
  score: number
}

/**
 * Real-time topic attribution (design §2.2). `attribute` must be called in message order per
 * channel (the caller serialises per channel); it assumes the message row is already stored, since
 * it records the topic on it. Several topics of one channel stay active at once, so interleaved
 * conversations in a group each keep their own topic.
 */
export class TopicAttributor {
  readonly thresholds: TopicThresholds
  readonly idleMs: number
  private readonly followMs: number
  private readonly authorBonus: number
  private readonly maxActive: number
  private readonly judgeCandidates: number
  private readonly judgeMessages: number
  private readonly centroidWindow: number
  private readonly now: () => Date
  private readonly newId: () => string
  private readonly topicText?: (content: string) => string

  constructor(private options: TopicAttributorOptions) {
    const thresholds = { ...defaultTopicThresholds(options.embedder), ...definedOnly(options.thresholds ?? {}) }
    if (!(thresholds.low <= thresholds.join))
      throw new RangeError(`topic thresholds: low (${thresholds.low}) must not exceed join (${thresholds.join})`)
    this.thresholds = thresholds
    this.idleMs = options.idleMs ?? 60 * 60_000
    this.followMs = options.followMs ?? 10 * 60_000
    this.maxActive = options.maxActive ?? 20
    this.authorBonus = options.authorBonus ?? (options.embedder.lexical ? 0.05 : 0.03)
    this.judgeCandidates = options.judgeCandidates ?? 3
    this.judgeMessages = options.judgeMessages ?? 5
    this.centroidWindow = Math.max(1, options.centroidWindow ?? 50)
    this.now = options.now ?? (() => new Date())
    this.newId = options.newId ?? (() => randomBytes(6).toString('hex'))
    this.topicText = options.topicText ?? (options.embedder.lexical ? lexicalTopicText : undefined)
  }

  /** Finds (or opens) the topic of a stored message and records it on the message and the topic. */
  async attribute(message: MessageRow, vector?: Float32Array): Promise<Attribution> {
    const { topics, messages, embedder } = this.options
    const channel: ChannelRef = { platform: message.platform, guildId: message.guildId, channelId: message.channelId }
    const at = message.createdAt.getTime()
    const lowSignal = isLowSignal(message.content)
    if (this.topicText) vector = lowSignal ? undefined : await this.embed(this.topicText(message.content))
    else if (!vector && !lowSignal) vector = await this.embed(message.content)
    const usable = !lowSignal && vector !== undefined && norm(vector) > 1e-6 ? vector : undefined

    // a. a reply goes where the message it answers went
    if (message.replyMessageId) {
      const [parent] = await messages.byMessageIds(channel, [message.replyMessageId])
      const topic = parent?.topicId ? await topics.get(parent.topicId) : undefined
      if (topic && !topic.archived && sameChannel(topic, channel)) {
        const similarity = usable && comparable(topic, usable, embedder.id) ? cosine(usable, topic.centroid) : undefined
        return this.join(topic, message, usable, 'reply', similarity)
      }
    }

    const active = (await topics.active(channel, this.maxActive))
      .filter((topic) => !topic.archived && topic.lastMessageAt.getTime() >= at - this.idleMs)
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime())

    const authorsTopic = await this.authorsRecentTopic(message, channel, active)
    // too little to go on: stay with the author's recent topic, or the one the channel is on
    if (!usable) {
      const topic = authorsTopic ?? active[0]
      if (topic) return this.join(topic, message, undefined, 'continued')
      return this.open(message, undefined)
    }

    // b. compare with the active topics (the author's own one slightly favoured)
    const scored: Scored[] = active
      .filter((topic) => comparable(topic, usable, embedder.id))
      .map((topic) => {
        const similarity = cosine(usable, topic.centroid)
        return { topic, similarity, score: similarity + (topic === authorsTopic ? this.authorBonus : 0) }
      })
      .sort((a, b) => b.score - a.score)
    const best = scored[0]
    if (best && best.score >= this.thresholds.join) return this.join(best.topic, message, usable, 'joined', best.similarity)
    // the author opened a topic with a bare "在吗" / "hi" moments ago: this is what they came to say
    if (authorsTopic && authorsTopic.vectorCount === 0) return this.join(authorsTopic, message, usable, 'continued')
    if (best && best.score >= this.thresholds.low) {
      // counted with or without a model: what a configured model would be asked
      this.options.counters?.inc('topic.uncertain')
      if (!this.options.judge) return this.join(best.topic, message, usable, 'joined', best.similarity)
      const choice = await this.judge(message, scored.slice(0, this.judgeCandidates))
      if (choice === 'failed') {
        this.options.counters?.inc('topic.judge-fallback')
        return this.join(best.topic, message, usable, 'joined', best.similarity)
      }
      if (choice.kind === 'topic') return this.join(choice.topic, message, usable, 'judged', choice.similarity)
      return this.open(message, usable, choice.title)
    }

    // c. nothing close: a new topic
    return this.open(message, usable)
  }

  /** Closes topics idle longer than `idleMs` (default: the attributor's); returns those closed. */
  async closeIdleTopics(now: Date = this.now(), idleMs: number = this.idleMs, limit = 1000): Promise<TopicRow[]> {
    const closed = await this.options.topics.closeIdle(new Date(now.getTime() - idleMs), limit)
    if (closed.length) this.options.counters?.inc('topic.closed', closed.length)
    return closed
  }

  private async embed(text: string): Promise<Float32Array | undefined> {
    try {
      const [vector] = await this.options.embedder.embed([text])
      return vector
    } catch (error) {
      this.options.counters?.inc('topic.embed-failed')
      this.options.logger?.debug('topic attribution without a vector: %s', (error as Error).message)
      return undefined
    }
  }

  /** The active topic of the author's latest message in the channel, if they spoke within `followMs`. */
  private async authorsRecentTopic(message: MessageRow, channel: ChannelRef, active: TopicRow[]) {
    if (!active.length) return undefined
    const at = message.createdAt.getTime()
    // +1 ms: lines replayed with one shared timestamp still count as earlier
    const recent = await this.options.messages.window(channel, { since: new Date(at - this.followMs), before: new Date(at + 1), limit: 50 })
    const byId = new Map(active.map((topic) => [topic.id, topic]))
    for (let i = recent.length - 1; i >= 0; i--) {
      const row = recent[i]
      if (row.id === message.id || row.userId !== message.userId || !row.topicId) continue
      const topic = byId.get(row.topicId)
      if (topic) return topic
    }
    return undefined
  }

  /** Asks the judge; `'failed'` when it could not answer usably. */
  private async judge(
    message: MessageRow,
    scored: Scored[],
  ): Promise<'failed' | { kind: 'topic'; topic: TopicRow; similarity: number } | { kind: 'new'; title: string }> {
    const before = new Date(message.createdAt.getTime() + 1)
    try {
      const candidates: TopicCandidate[] = await Promise.all(
        scored.map(async ({ topic }) => ({
          title: topic.title,
          messages: (await this.options.messages.byTopic(topic.id, { before, limit: this.judgeMessages, channel: message })).filter(
            (row) => row.id !== message.id,
          ),
        })),
      )
      const choice = await this.options.judge!.choose(message, candidates)
      if (choice.kind === 'new') {
        this.options.counters?.inc('topic.judged-new')
        return choice
      }
      const picked = scored[choice.index]
      if (!picked) throw new RangeError(`topic.choose: index ${choice.index} outside 0…${scored.length - 1}`)
      return { kind: 'topic', topic: picked.topic, similarity: picked.similarity }
    } catch (error) {
      this.options.logger?.debug('topic judge failed, keeping the closest topic: %s', (error as Error).message)
      return 'failed'
    }
  }

  private async join(
    topic: TopicRow,
    message: MessageRow,
    vector: Float32Array | undefined,
    how: AttributionHow,
    similarity?: number,
  ): Promise<Attribution> {
    const { embedder, judge } = this.options
    const patch: Partial<TopicRow> = {
      messageCount: topic.messageCount + 1,
      lastMessageAt: new Date(Math.max(topic.lastMessageAt.getTime(), message.createdAt.getTime())),
      updatedAt: this.now(),
      active: true,
    }
    if (vector) Object.assign(patch, addToCentroid(topic, vector, embedder.id, this.centroidWindow))
    const keywords = mergeKeywords(topic.keywords ?? {}, message.content)
    patch.keywords = keywords
    if (!judge) patch.title = keywordTitle(keywords, topic.title)
    else if (vector && topic.vectorCount === 0) {
      // opened by a message with no words to name it: name it after the first one that has some
      patch.title = await this.title(message, keywords)
    }
    await this.options.topics.update(topic.id, patch)
    await this.options.messages.setTopic([message.id], topic.id)
    this.options.counters?.inc(`topic.${how}`)
    return similarity === undefined ? { topicId: topic.id, how } : { topicId: topic.id, how, similarity }
  }

  private async open(message: MessageRow, vector: Float32Array | undefined, title?: string): Promise<Attribution> {
    const keywords = mergeKeywords({}, message.content)
    // a topic opened by a bare reaction is named from its words until a real message names it
    if (!title) title = vector && this.options.judge ? await this.title(message, keywords) : keywordTitle(keywords, message.content)
    const centroid = vector
      ? addToCentroid(undefined, vector, this.options.embedder.id, this.centroidWindow)
      : { centroid: [], centroidNorm: 0, vectorCount: 0, embedder: this.options.embedder.id }
    const row: TopicRow = {
      id: this.newId(),
      platform: message.platform,
      guildId: message.guildId,
      channelId: message.channelId,
      title,
      keywords,
      ...centroid,
      messageCount: 1,
      creatorId: message.userId,
      createdAt: message.createdAt,
      updatedAt: this.now(),
      lastMessageAt: message.createdAt,
      active: true,
      archived: false,
    }
    await this.options.topics.create(row)
    await this.options.messages.setTopic([message.id], row.id)
    this.options.counters?.inc('topic.new')
    return { topicId: row.id, how: 'new' }
  }

  /** A title from the judge, or from the keywords when there is no judge or it failed. */
  private async title(message: MessageRow, keywords: Record<string, number>): Promise<string> {
    const { judge } = this.options
    if (judge) {
      try {
        return await judge.title(message)
      } catch (error) {
        this.options.counters?.inc('topic.title-fallback')
        this.options.logger?.debug('topic title from keywords: %s', (error as Error).message)
      }
    }
    return keywordTitle(keywords, message.content)
  }
}

function sameChannel(topic: TopicRow, channel: ChannelRef) {
  return topic.platform === channel.platform && topic.channelId === channel.channelId
}

/** A topic can be compared with a vector when its centroid was made by the same embedder, at the same length. */
function comparable(topic: TopicRow, vector: Float32Array, embedderId: string) {
  return topic.vectorCount > 0 && topic.embedder === embedderId && topic.centroid?.length === vector.length
}

function norm(vector: ArrayLike<number>) {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i]
  return Math.sqrt(sum)
}

/** Stored centroids keep 6 decimals: ample for cosine, and about half the JSON of full floats. */
function round6(x: number) {
  return Math.round(x * 1e6) / 1e6
}

/**
 * The running mean of the member vectors with `vector` added, as a unit direction plus the mean's
 * length. Exact up to `window` members; past it the old mean counts as `window - 1` members (an
 * exponential moving average). A centroid from another embedder or length starts over.
 */
export function addToCentroid(
  topic: Pick<TopicRow, 'centroid' | 'centroidNorm' | 'vectorCount' | 'embedder'> | undefined,
  vector: Float32Array,
  embedderId: string,
  window = Infinity,
): Pick<TopicRow, 'centroid' | 'centroidNorm' | 'vectorCount' | 'embedder'> {
  const length = norm(vector)
  const fresh = !topic || topic.vectorCount === 0 || topic.embedder !== embedderId || topic.centroid?.length !== vector.length
  if (fresh) {
    return { centroid: Array.from(vector, (x) => round6(x / length)), centroidNorm: 1, vectorCount: 1, embedder: embedderId }
  }
  const n = Math.min(topic.vectorCount, window - 1)
  const weight = n * topic.centroidNorm
  const mean = new Float64Array(vector.length)
  for (let i = 0; i < vector.length; i++) mean[i] = (topic.centroid[i] * weight + vector[i] / length) / (n + 1)
  const meanNorm = norm(mean)
  if (meanNorm === 0) return { centroid: [], centroidNorm: 0, vectorCount: 0, embedder: embedderId }
  return {
    centroid: Array.from(mean, (x) => round6(x / meanNorm)),
    centroidNorm: round6(meanNorm),
    vectorCount: topic.vectorCount + 1,
    embedder: embedderId,
  }
}
