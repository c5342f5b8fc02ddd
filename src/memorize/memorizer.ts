import type { ForgetFence } from '../store/forget-fence'
import type { Counters, Logger } from '../core/observability'
import type { Dialogue, FactsPart, MemorizeOutcome } from '../facts'
import { memorize, saidAt, speakers } from '../facts'
import type { KnowledgePart } from '../knowledge'
import type { Embedder } from '../providers/types'
import type { BudgetGate } from '../budget'
import { budgetOwnerOf } from '../budget'

export interface MemorizerDeps {
  facts: FactsPart
  knowledge: KnowledgePart
  embedder: Embedder
  fence: ForgetFence
  counters: Counters
  logger: Logger
  newId(): string
  now(): Date
  /** The model-call budgets: a dialogue of a group (or private chat) whose day is spent is judged by the offline rules. */
  budget?: BudgetGate
}

export interface MemorizerSettings {
  /** Learn entities, relations and profiles too. */
  knowledge: boolean
  dedupeThreshold: number
  commandPrefixes: string[]
}

/**
 * The post-dialogue chain: the dialogue's facts, then its structured knowledge (no model call: the
 * judge's answer carries it, or the offline rules read it), and the users whose facts changed get
 * their profiles due sooner. A user forgotten meanwhile gets nothing stored of what they said before.
 */
export function createMemorizer(deps: MemorizerDeps, settings: MemorizerSettings): (dialogue: Dialogue) => Promise<MemorizeOutcome> {
  const { facts, knowledge, fence, logger } = deps
  /** The model's judge while the dialogue's group (or private chat) has calls left today, else the offline rules. */
  const judgeOf = async (dialogue: Dialogue) => {
    if (!deps.budget || facts.judge === facts.rules) return facts.judge
    const owner = budgetOwnerOf(dialogue.owner)
    if (await deps.budget.allows(owner)) return facts.judge
    await deps.budget.noteOffline(owner)
    deps.counters.inc('budget.offline-extractions')
    return facts.rules
  }
  const memorizeFacts = async (dialogue: Dialogue) =>
    memorize(
      {
        judge: await judgeOf(dialogue),
        embedder: deps.embedder,
        facts: facts.store,
        factIndex: facts.index,
        counters: deps.counters,
        logger,
        dedupeThreshold: settings.dedupeThreshold,
        commandPrefixes: settings.commandPrefixes,
        newId: deps.newId,
        now: deps.now,
        lock: facts.lock,
        forgottenAt: (owner) => fence.since(owner),
      },
      dialogue,
    )

  const noteNewFacts = async (dialogue: Dialogue, stored: { userId: string }[]) => {
    const perUser = new Map<string, number>()
    for (const fact of stored) perUser.set(fact.userId, (perUser.get(fact.userId) ?? 0) + 1)
    for (const [userId, count] of perUser) {
      const name = dialogue.turns.find((turn) => turn.userId === userId)?.name ?? userId
      await knowledge.profiles
        .noteFacts({ platform: dialogue.owner.platform, guildId: dialogue.owner.guildId, userId }, name, count)
        .catch((error) => logger.warn('could not update a profile: %s', (error as Error).message))
    }
  }

  /**
   * A speaker forgotten while this dialogue ran (on this instance or another, whose forget may have
   * read the tables before these rows were written) loses what it stored of their words.
   */
  const undoForgotten = async (dialogue: Dialogue, outcome: MemorizeOutcome) => {
    const users = speakers(dialogue).map((userId) => ({ platform: dialogue.owner.platform, userId }))
    await fence.refresh(users)
    for (const user of users) {
      const since = fence.since(user)
      const said = saidAt(dialogue, user.userId)
      if (!since || !said || said > since) continue
      const stored = outcome.status === 'stored' ? outcome.facts.filter(({ fact }) => fact.userId === user.userId) : []
      const ids = stored.map(({ fact }) => fact.id)
      await facts.store.remove(ids)
      await facts.index.remove(ids)
      const lines = dialogue.sourceIds.filter((_, i) => (dialogue.turns[i]?.userId ?? dialogue.owner.userId) === user.userId)
      if (settings.knowledge) await knowledge.knowledge.forgetUser(user, lines)
      deps.counters.inc('memorize.fenced-after', ids.length)
    }
  }

  const memorizeOne = async (dialogue: Dialogue) => {
    await fence.refresh(speakers(dialogue).map((userId) => ({ platform: dialogue.owner.platform, userId })))
    const outcome = await memorizeFacts(dialogue)
    if (settings.knowledge && outcome.status !== 'failed') {
      await knowledge.learner.learn(dialogue, 'extraction' in outcome ? outcome.extraction : undefined)
      if (outcome.status === 'stored')
        await noteNewFacts(
          dialogue,
          outcome.facts.map((stored) => stored.fact),
        )
    }
    await undoForgotten(dialogue, outcome)
    return outcome
  }
  const budget = deps.budget
  return budget ? (dialogue) => budget.run(budgetOwnerOf(dialogue.owner), () => memorizeOne(dialogue)) : memorizeOne
}
