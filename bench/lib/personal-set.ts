/**
 * First-person questions in private chats (test/fixtures/knowledge-questions.jsonl): each person tells
 * the bot where they live and work, their pets' and people's names and what they like, among small
 * talk, then asks about it in their own words ("我住在哪里？", "What's my cat's name?"). Scored as
 * `bench:knowledge` scores LoCoMo: an evidence line among the sources of the top 5 items.
 */
import { readFileSync } from 'node:fs'
import type { App } from 'koishi'

interface Person {
  user: string
  lang: 'zh' | 'en'
  lines: string[]
  questions: { question: string; evidence: number }[]
}

export interface PersonalScores {
  questions: number
  'recall@5': number
  'baseline_recall@5': number
  first_hit_by_kind: Record<string, number>
}

/** Replays each person's lines in their private chat, then asks their questions through `recallKnowledge` and `retrieve`. */
export async function personalRecall(app: App, file: string): Promise<PersonalScores> {
  const people = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Person)
  let recalled = 0
  let baseline = 0
  let asked = 0
  const byKind: Record<string, number> = {}
  for (const person of people) {
    const userId = `kq-${person.user}`
    for (const line of person.lines) {
      await app.mock.client(userId).receive(line)
      await app.memory.flush()
    }
    const messages = await app.database.get('memory_message', { platform: 'mock', userId, guildId: '' })
    for (const { question, evidence } of person.questions) {
      const wanted = new Set(messages.filter((row) => row.content === person.lines[evidence]).map((row) => row.id))
      const where = { platform: 'mock', guildId: '', topK: 5 }
      const items = await app.memory.recallKnowledge(userId, question, where)
      const hit = items.find((item) => item.sourceIds.some((id) => wanted.has(id)))
      if (hit) byKind[hit.kind] = (byKind[hit.kind] ?? 0) + 1
      recalled += hit ? 1 : 0
      const found = await app.memory.retrieve(userId, question, { ...where, minScore: 0 })
      baseline += found.some((memory) => memory.sources.some((line) => wanted.has(line.id))) ? 1 : 0
      asked++
    }
  }
  const share = (n: number) => Math.round((n / Math.max(1, asked)) * 10_000) / 10_000
  return { questions: asked, 'recall@5': share(recalled), 'baseline_recall@5': share(baseline), first_hit_by_kind: byKind }
}
