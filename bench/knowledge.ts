/**
 * Structured knowledge on LoCoMo (issue 11): the conversations replayed as group chats of their two
 * speakers (as `bench:ltm` does, offline providers), then, for the questions of categories 1, 2 and 4
 * whose evidence turns are all by one speaker:
 *   - `recall@5`: one of the top 5 items of `ctx.memory.recallKnowledge(speaker, question)` (the
 *     memories of `retrieve`, the speaker's preferences, relations and entities of the group's
 *     knowledge) has an evidence turn among the messages it came from;
 *   - `baseline_recall@5`: the same for `ctx.memory.retrieve(speaker, question)` (facts and lines, no
 *     knowledge), scored the same way, in the same run;
 * and counts the entities and relations stored per conversation; the same two scores on first-person
 * questions in private chats (`personal_recall@5`, `bench/lib/personal-set.ts`); and `entity_precision` (with recall,
 * per part) of the extractor on the labelled chat lines of test/fixtures/entities.jsonl (`bench/lib/entity-set.ts`).
 *
 *   npm run bench:knowledge -- [--data DIR] [--out FILE] [--limit N]
 */
import * as path from 'node:path'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { entityScores } from './lib/entity-set'
import { personalRecall } from './lib/personal-set'
import { intOption, parseArgs } from './lib/args'
import { mean, round4 } from './lib/metrics'
import { loadConversations, messageIdOf, userIdOf } from './locomo'
import { DEFAULT_QUIET_MINUTES, replay } from './ltm'

const ROOT = path.resolve(__dirname, '..')
const CATEGORIES = ['1', '2', '4']
const ENTITY_SET = path.join(ROOT, 'test/fixtures/entities.jsonl')
const PERSONAL_SET = path.join(ROOT, 'test/fixtures/knowledge-questions.jsonl')

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataDir = path.resolve(options.data ?? path.join(ROOT, '../shared/data/locomo'))
  const limit = intOption(options, 'limit', Number.MAX_SAFE_INTEGER)
  const started = new Date()
  const rev = revision(ROOT)
  const conversations = loadConversations(dataDir).slice(0, limit)
  const bench = await bootApp({ memorize: { quietSeconds: 0 }, topics: { closeIntervalMinutes: 30_000 } })
  const { app } = bench
  try {
    const recall: number[] = []
    const baseline: number[] = []
    const byKind: Record<string, number> = {}
    let entities = 0
    let relations = 0
    const perConversation: Record<string, object> = {}
    for (const conv of conversations) {
      await replay(app, conv, DEFAULT_QUIET_MINUTES * 60_000)
      const channel = `ltm-${conv.id}`
      const convEntities = (await app.database.get('memory_entity', { platform: 'mock', guildId: channel })).length
      const convRelations = (await app.database.get('memory_relation', { platform: 'mock', guildId: channel })).length
      entities += convEntities
      relations += convRelations
      const turnIndex = new Map(conv.turns.map((turn, i) => [turn.diaId, i]))
      const rowId = (i: number) => `mock:${channel}:${messageIdOf(conv, i)}`
      const questions = conv.questions.filter((q) => {
        if (!CATEGORIES.includes(q.category) || !q.evidence.length || !q.evidence.every((id) => turnIndex.has(id))) return false
        return new Set(q.evidence.map((id) => conv.turns[turnIndex.get(id)!].speaker)).size === 1
      })
      let convRecall = 0
      let convBaseline = 0
      for (const q of questions) {
        const speaker = userIdOf(conv.turns[turnIndex.get(q.evidence[0])!].speaker)
        const evidence = new Set(q.evidence.map((id) => rowId(turnIndex.get(id)!)))
        const where = { platform: 'mock', guildId: channel, topK: 5 }
        const items = await app.memory.recallKnowledge(speaker, q.question, where)
        const hit = items.find((item) => item.sourceIds.some((id) => evidence.has(id)))
        if (hit) byKind[hit.kind] = (byKind[hit.kind] ?? 0) + 1
        recall.push(hit ? 1 : 0)
        convRecall += hit ? 1 : 0
        const found = await app.memory.retrieve(speaker, q.question, { ...where, minScore: 0 })
        const baseHit = found.some((memory) => memory.sources.some((line) => evidence.has(line.id)))
        baseline.push(baseHit ? 1 : 0)
        convBaseline += baseHit ? 1 : 0
      }
      perConversation[conv.id] = {
        questions: questions.length,
        entities: convEntities,
        relations: convRelations,
        'recall@5': round4(convRecall / Math.max(1, questions.length)),
        'baseline_recall@5': round4(convBaseline / Math.max(1, questions.length)),
      }
      log(
        `${conv.id}: ${convEntities} entities, ${convRelations} relations; recall@5 ${convRecall}, retrieve alone ${convBaseline} of ${questions.length}`,
      )
    }
    const personal = await personalRecall(app, PERSONAL_SET)
    log(`first-person questions in private chats: recall@5 ${personal['recall@5']}, retrieve alone ${personal['baseline_recall@5']}`)
    const entitySet = entityScores(ENTITY_SET)
    writeResult(
      {
        'recall@5': round4(mean(recall)),
        'baseline_recall@5': round4(mean(baseline)),
        entity_precision: entitySet.all.entity_precision,
        entity_set: entitySet,
        'personal_recall@5': personal['recall@5'],
        'personal_baseline_recall@5': personal['baseline_recall@5'],
        personal,
        entities,
        relations,
        questions: recall.length,
        first_hit_by_kind: byKind,
        per_conversation: perConversation,
        definitions: {
          questions: 'LoCoMo categories 1, 2 and 4 whose evidence turns are all by one speaker',
          'recall@5':
            'an evidence turn is among the sources of one of the top 5 items of recallKnowledge (facts, preferences, relations, entities)',
          'baseline_recall@5': 'the same for retrieve (facts and the speaker’s lines, no knowledge)',
          'personal_recall@5':
            'the same two scores on first-person questions asked in private chats after statements among small talk (test/fixtures/knowledge-questions.jsonl, written with the question aims in mind: not held out)',
          entity_precision:
            'of the entities the extractor names on the labelled lines (the speaker aside), the share marked on that line with its type or typed OTHER; entity_set has each part (held-out never tuned on) and recall',
        },
        ...runInfo(dataDir, started, rev),
      },
      options.out,
    )
  } finally {
    await bench.stop()
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
