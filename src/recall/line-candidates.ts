import type { MessageHit, MessageRow, MessagesPart } from '../messages'
import type { Scope } from '../scope'
import { isQuestion } from '../text/questions'

/** Lines of the asker fetched from the index, for the reranker. */
const LINES_SEARCHED = 40
/** Lines of a guild fetched from the index, anyone's: the asker's and those they may have answered. */
const GUILD_LINES_SEARCHED = 60
/** Turns after another's line where the asker's answer to it is looked for. */
const ANSWER_REACH = 2
/** Longest pause between a line and the answer to it. */
const ANSWER_GAP_MS = 10 * 60_000

/** A line of the asker, with the line before it that it answers (someone else's question, said just before). */
export interface LineCandidate {
  row: MessageRow
  answers?: MessageRow
  /** Similarity of the line (or of the line it answers, when only that was found) to the query. */
  similarity: number
}

export interface AskerScope extends Scope {
  platform: string
  userId: string
}

const channelOf = (row: Pick<MessageRow, 'platform' | 'channelId'>) => `${row.platform}\u0000${row.channelId}`

/**
 * Lines of the asker worth ranking for a query: those the index finds among theirs, and in a guild
 * the lines they said right after a question of someone else's the index finds ("what's your cat's
 * name?" → "Mimi!"), each with the question it answers: another's statement beside theirs is no part of
 * their memory. Questions of the asker are no memory of theirs.
 * `extra`: lines that must be in the result with what they answer (the sources of candidate facts).
 */
export async function lineCandidates(
  messages: MessagesPart,
  scope: AskerScope,
  query: string,
  minScore: number,
  extra: MessageRow[],
): Promise<LineCandidate[]> {
  const { index, store } = messages
  // in a guild one search finds the asker's lines and the lines of others they may have answered
  const where = scope.guildId
    ? { platform: scope.platform, guildId: scope.guildId }
    : { platform: scope.platform, userId: scope.userId, ...(scope.guildId !== undefined && { guildId: scope.guildId }) }
  // an index that is down leaves the facts (the retriever says so, once per outage)
  const found = await index
    .searchWithin(where, query, { limit: scope.guildId ? GUILD_LINES_SEARCHED : LINES_SEARCHED })
    .catch(() => [] as MessageHit[])
  const similarity = new Map(found.filter((hit) => hit.similarity >= minScore).map((hit) => [hit.id, hit.similarity]))
  const rows = new Map(extra.map((row) => [row.id, row]))
  for (const row of await store.byIds([...similarity.keys()].filter((id) => !rows.has(id)))) rows.set(row.id, row)
  const candidates = new Map<string, LineCandidate>()
  const said: MessageRow[] = []
  for (const row of rows.values()) {
    if (row.userId !== scope.userId) said.push(row)
    else if (!isQuestion(row.content)) candidates.set(row.id, { row, similarity: similarity.get(row.id) ?? 0 })
  }
  // what the lines answer, and the answers to what others said, only within the guild (or private chat) asked about
  if (scope.guildId === undefined) return [...candidates.values()]
  const moments = [...[...candidates.values()].map(({ row }) => ({ row, line: true })), ...said.map((row) => ({ row, line: false }))]
  const byChannel = new Map<string, typeof moments>()
  for (const moment of moments) byChannel.set(channelOf(moment.row), [...(byChannel.get(channelOf(moment.row)) ?? []), moment])
  await Promise.all(
    [...byChannel.values()].map(async (list) => {
      const near = await store.around(
        { platform: list[0].row.platform, guildId: list[0].row.guildId, channelId: list[0].row.channelId },
        list.map(({ row }) => row.createdAt),
        ANSWER_REACH,
      )
      list.forEach(({ row, line }, i) => {
        const { before, after } = near[i]
        if (line) {
          const previous = before.at(-1)
          if (previous && asks(previous, scope.userId) && within(previous, row)) candidates.get(row.id)!.answers = previous
          return
        }
        const at = after.findIndex((next) => next.userId === scope.userId)
        const answer = after[at]
        const answered = at > 0 ? after[at - 1] : row
        if (!answer || candidates.has(answer.id) || isQuestion(answer.content) || !asks(answered, scope.userId) || !within(row, answer))
          return
        candidates.set(answer.id, { row: answer, similarity: similarity.get(row.id) ?? 0, answers: answered })
      })
    }),
  )
  return [...candidates.values()]
}

/** Another's line the asker's next line can answer: a question (a statement next to theirs is no question to them). */
const asks = (line: MessageRow, asker: string) => line.userId !== asker && isQuestion(line.content)

const within = (first: MessageRow, then: MessageRow) => then.createdAt.getTime() - first.createdAt.getTime() <= ANSWER_GAP_MS
