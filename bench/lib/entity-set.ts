/**
 * Entity precision and recall on the labelled chat lines of `test/fixtures/entities.jsonl` (issue 23):
 * each line is given to the real knowledge extractor as a private-chat turn of one user; what it names
 * (the speaker aside) is compared with the entities a careful reader marks. An entity is right when
 * its name is marked on that line and its type is the marked one (a line may allow two) or the neutral
 * OTHER; `typed_precision` takes only the marked type. The file's held-out part is never tuned on.
 */
import { readFileSync } from 'node:fs'
import type { EntityType } from '../../src/knowledge'
import { KnowledgeExtractor } from '../../src/knowledge'

interface LabelledLine {
  id: number
  split: 'dev' | 'held-out'
  lang: 'zh' | 'en'
  text: string
  entities: { name: string; type: EntityType | EntityType[] }[]
}

export interface EntityScores {
  lines: number
  marked: number
  extracted: number
  entity_precision: number
  typed_precision: number
  entity_recall: number
}

const silent = { debug() {}, info() {}, warn() {}, error() {} }

export function readLabelledLines(file: string): LabelledLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as LabelledLine)
}

/** Scores of the extractor on each part of the labelled set, and on the whole. */
export function entityScores(file: string): Record<'dev' | 'held-out' | 'all', EntityScores> {
  const extractor = new KnowledgeExtractor(silent as never)
  const lines = readLabelledLines(file)
  const score = (part: LabelledLine[]): EntityScores => {
    let extracted = 0
    let right = 0
    let typed = 0
    let found = 0
    let marked = 0
    for (const line of part) {
      const draft = extractor.extract([{ role: 'user', content: line.text, name: 'speaker', userId: 'speaker' }])
      const named = draft.entities.filter((entity) => !entity.userId)
      const gold = line.entities.map((entity) => ({ name: entity.name, types: [entity.type].flat() }))
      extracted += named.length
      marked += gold.length
      for (const entity of named) {
        const mark = gold.find((one) => one.name === entity.name)
        if (mark && (mark.types.includes(entity.type) || entity.type === 'OTHER')) right++
        if (mark?.types.includes(entity.type)) typed++
      }
      found += gold.filter((one) => named.some((entity) => entity.name === one.name)).length
    }
    const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10_000) / 10_000 : 1)
    return {
      lines: part.length,
      marked,
      extracted,
      entity_precision: ratio(right, extracted),
      typed_precision: ratio(typed, extracted),
      entity_recall: ratio(found, marked),
    }
  }
  return {
    dev: score(lines.filter((line) => line.split === 'dev')),
    'held-out': score(lines.filter((line) => line.split === 'held-out')),
    all: score(lines),
  }
}
