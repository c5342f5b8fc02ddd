import type { MessageFeatures } from './analyzer'
import type { Keyword } from '../text/keywords'

/**
 * The relevance scorer (design §5.2): how relevant a candidate message is to the message a context
 * is built for, as a weighted sum of signals, each in [0, 1]:
 *
 * | signal            | weight | 1 when …                                                         |
 * |-------------------|--------|------------------------------------------------------------------|
 * | `replyChain`      | 0.4    | the candidate is the message replied to (deeper links count less; same thread 0.6) |
 * | `userContinuity`  | 0.15   | the same person wrote it (0.6 when it answered that person)     |
 * | `timeDecay`       | 0.2    | it was just said; halves every `halfLifeHours`                  |
 * | `mentionRelation` | 0.15   | the target names or @-s its author, or it @-s the target's author |
 * | `keywordOverlap`  | 0.1    | it holds all of the target's keywords (by keyword weight)       |
 * | `semantic`        | 0.6    | it is the closest of the candidates to the target in meaning    |
 * | `sameTopic`       | 0.25   | the topic attribution put it in the target's topic              |
 *
 * The first five are the original ones (design §5.2); `semantic` and `sameTopic` are this project's additions, and the
 * semantic weight was chosen on the LoCoMo benchmark (docs/benchmarks.md). The score is the weighted
 * sum, capped at 1; candidates below `threshold` (0.3) are not relevant enough to be shown. When the
 * attribution put a candidate in another topic than the target's, recency and user continuity do
 * not speak for it (they are signals of one conversation flow, and it belongs to another).
 */

export interface ScorerWeights {
  replyChain: number
  userContinuity: number
  timeDecay: number
  mentionRelation: number
  keywordOverlap: number
  semantic: number
  sameTopic: number
}

export type SignalName = keyof ScorerWeights
export type Signals = Record<SignalName, number>

export const SIGNALS: readonly SignalName[] = [
  'replyChain',
  'userContinuity',
  'timeDecay',
  'mentionRelation',
  'keywordOverlap',
  'semantic',
  'sameTopic',
]

export const DEFAULT_WEIGHTS: Readonly<ScorerWeights> = Object.freeze({
  replyChain: 0.4,
  userContinuity: 0.15,
  timeDecay: 0.2,
  mentionRelation: 0.15,
  keywordOverlap: 0.1,
  semantic: 0.6,
  sameTopic: 0.25,
})

export interface ScorerOptions {
  weights?: Partial<ScorerWeights>
  /** Least score a candidate needs to be shown. Default 0.3. */
  threshold?: number
  /** Time after which the time-decay signal has halved. Default 6 h. */
  halfLifeHours?: number
}

/** What the scorer is told about a candidate beyond its own features. */
export interface CandidateRelation {
  /** Place in the target's reply chain: 1 = the message the target replies to, 2 = the one that replied to, … */
  replyDepth?: number
  /** The candidate belongs to the target's thread (same root message), or is that root. */
  sameThread?: boolean
  /** The candidate replies to a message written by the target's author. */
  answersTargetAuthor?: boolean
  /** The candidate is the bot's and the target @-s the bot. */
  botAddressed?: boolean
  /** Whether the topic attribution put the candidate in the target's topic; undefined when either is unknown. */
  topic?: 'same' | 'other'
  /**
   * Keyword overlap measured with corpus statistics, in [0, 1] (the context builder's BM25 share).
   * When absent, the overlap of the two keyword lists is used.
   */
  keywordOverlap?: number
  /** Semantic closeness to the target in [0, 1] (the caller calibrates raw cosine similarities). */
  semantic?: number
  /**
   * Content relevance carried over from a neighbouring turn, already decayed by distance: the
   * question right before an answer, the answer right after a question. It stands in for the
   * candidate's own keyword and semantic contributions when it is larger.
   */
  adjacent?: number
}

/** Signal values; `adjacent` is present when content relevance was carried over from a neighbour. */
export type ScoredSignals = Signals & { adjacent?: number }

export interface ScoredMessage {
  score: number
  signals: ScoredSignals
}

export type ScoringFeatures = Pick<MessageFeatures, 'userId' | 'userName' | 'mentions' | 'keywords'> & { time: Date }

export class RelevanceScorer {
  readonly weights: Readonly<ScorerWeights>
  readonly threshold: number
  readonly halfLifeMs: number

  constructor(options: ScorerOptions = {}) {
    const weights = { ...DEFAULT_WEIGHTS, ...options.weights }
    for (const name of SIGNALS) {
      if (!Number.isFinite(weights[name]) || weights[name] < 0)
        throw new RangeError(`scorer weight ${name} must be a number ≥ 0, got ${weights[name]}`)
    }
    this.weights = Object.freeze(weights)
    this.threshold = options.threshold ?? 0.3
    this.halfLifeMs = (options.halfLifeHours ?? 6) * 3_600_000
    if (!(this.halfLifeMs > 0)) throw new RangeError('halfLifeHours must be > 0')
  }

  /** Signal values of `candidate` for `target`, each in [0, 1]. */
  signals(target: ScoringFeatures, candidate: ScoringFeatures, relation: CandidateRelation = {}): ScoredSignals {
    const otherTopic = relation.topic === 'other'
    const signals: ScoredSignals = {
      replyChain: replyChainSignal(relation),
      userContinuity: otherTopic ? 0 : candidate.userId === target.userId ? 1 : relation.answersTargetAuthor ? 0.6 : 0,
      timeDecay: otherTopic ? 0 : this.timeDecay(target.time, candidate.time),
      mentionRelation: mentionSignal(target, candidate, relation),
      keywordOverlap: clamp01(relation.keywordOverlap ?? keywordOverlap(target.keywords, candidate.keywords)),
      semantic: clamp01(relation.semantic ?? 0),
      sameTopic: relation.topic === 'same' ? 1 : 0,
    }
    if (relation.adjacent !== undefined) signals.adjacent = clamp01(relation.adjacent)
    return signals
  }

  /** The part of the score that comes from what the message says (keywords and meaning). */
  content(signals: Signals): number {
    return this.weights.keywordOverlap * signals.keywordOverlap + this.weights.semantic * signals.semantic
  }

  /**
   * The weighted sum of the signals, capped at 1. A carried-over `adjacent` relevance replaces the
   * content part when it is larger.
   */
  combine(signals: ScoredSignals): number {
    let total = 0
    for (const name of SIGNALS) total += this.weights[name] * signals[name]
    if (signals.adjacent !== undefined) total += Math.max(0, signals.adjacent - this.content(signals))
    return Math.min(1, total)
  }

  score(target: ScoringFeatures, candidate: ScoringFeatures, relation: CandidateRelation = {}): ScoredMessage {
    const signals = this.signals(target, candidate, relation)
    return { score: this.combine(signals), signals }
  }

  passes(score: number): boolean {
    return score >= this.threshold
  }

  timeDecay(targetTime: Date, candidateTime: Date): number {
    const age = Math.max(0, targetTime.getTime() - candidateTime.getTime())
    return Math.pow(0.5, age / this.halfLifeMs)
  }
}

function replyChainSignal(relation: CandidateRelation): number {
  if (relation.replyDepth !== undefined && relation.replyDepth >= 1) return Math.max(0.6, 1 - 0.1 * (relation.replyDepth - 1))
  return relation.sameThread ? 0.6 : 0
}

function mentionSignal(target: ScoringFeatures, candidate: ScoringFeatures, relation: CandidateRelation): number {
  const targetNames = new Set(target.mentions)
  if (targetNames.has(candidate.userId) || targetNames.has(candidate.userName.toLowerCase())) return 1
  if (candidate.mentions.includes(target.userId) || candidate.mentions.includes(target.userName.toLowerCase())) return 0.8
  if (relation.botAddressed) return 0.6
  if (candidate.mentions.some((name) => targetNames.has(name))) return 0.5
  return 0
}

/**
 * Share of the target's keyword weight that the candidate also holds. Weights carry whatever the
 * analyzer put in them (term frequency, specificity, the channel's inverse document frequency).
 */
export function keywordOverlap(target: Keyword[], candidate: Keyword[]): number {
  if (!target.length || !candidate.length) return 0
  const present = new Set(candidate.map((keyword) => keyword.word))
  let total = 0
  let shared = 0
  for (const keyword of target) {
    total += keyword.weight
    if (present.has(keyword.word)) shared += keyword.weight
  }
  return total > 0 ? shared / total : 0
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0
}
