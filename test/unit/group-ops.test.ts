import { describe, expect, it } from 'vitest'
import { parseEvolutionAnswer, resolveOps, shownIndex, validateOp } from '../../src/group/ops'
import { memoryRow } from '../fakes/group-store'

const group = { platform: 'qq', guildId: 'g1' }

describe("parseEvolutionAnswer: design §6.4's table of cases", () => {
  it('normal JSON parses directly', () => {
    const parsed = parseEvolutionAnswer('{"action": "keep", "old_id": 1}')
    expect(parsed.ops).toEqual([{ action: 'keep', oldId: 1 }])
    expect(parsed).toMatchObject({ invalid: [], ignored: [], repaired: 0 })
  })

  it('missing quotes are repaired', () => {
    const parsed = parseEvolutionAnswer('{action: keep, old_id: 1}')
    expect(parsed.ops).toEqual([{ action: 'keep', oldId: 1 }])
    expect(parsed.repaired).toBe(1)
  })

  it('a trailing comma is repaired', () => {
    const parsed = parseEvolutionAnswer('{"action": "keep", "old_id": 2,}')
    expect(parsed.ops).toEqual([{ action: 'keep', oldId: 2 }])
    expect(parsed.repaired).toBe(1)
  })

  it('single quotes are repaired', () => {
    const parsed = parseEvolutionAnswer("{'action': 'delete', 'old_id': 3, 'change_reason': '过时了'}")
    expect(parsed.ops).toEqual([{ action: 'delete', oldId: 3, reason: '过时了' }])
    expect(parsed.repaired).toBe(1)
  })

  it('markdown fence lines are skipped', () => {
    const parsed = parseEvolutionAnswer(
      '```json\n{"action": "keep", "old_id": 1}\n{"action": "create", "statement": "成员多为前端开发者", "change_reason": "多次提到"}\n```',
    )
    expect(parsed.ops).toEqual([
      { action: 'keep', oldId: 1 },
      { action: 'create', statement: '成员多为前端开发者', reason: '多次提到', tags: undefined, strength: undefined },
    ])
    expect(parsed.invalid).toEqual([])
    expect(parsed.ignored).toEqual([])
  })

  it('text that is not JSON is skipped and reported, never fatal', () => {
    const parsed = parseEvolutionAnswer('这不是JSON')
    expect(parsed.ops).toEqual([])
    expect(parsed.ignored).toEqual(['这不是JSON'])
  })
})

describe('parseEvolutionAnswer: one bad line never loses the others', () => {
  it('keeps every good line around bad ones and counts the bad ones', () => {
    const answer = [
      '# evolution result',
      '// comment',
      'Here is my analysis:',
      '{"action": "keep", "old_id": 1}',
      '{"action": "update", "old_id": 2 "statement": "每周五晚上讨论新番动漫，偏好科幻题材", "change_reason": "明确了偏好"}',
      '{"action": "explode", "old_id": 3}',
      '{"action": "update", "old_id": 4}',
      '{"action": "create", "statement": "", "change_reason": "empty"}',
      '{{{{',
      '{"action": "delete", "old_id": 5, "change_reason": "不再讨论"}',
    ].join('\n')
    const parsed = parseEvolutionAnswer(answer)
    expect(parsed.ops.map((op) => op.action)).toEqual(['keep', 'update', 'delete'])
    expect(parsed.ops[1]).toMatchObject({ oldId: 2, statement: '每周五晚上讨论新番动漫，偏好科幻题材' })
    // unknown action, update without statement, empty statement, unrepairable braces
    expect(parsed.invalid).toHaveLength(4)
    expect(parsed.ignored).toEqual(['Here is my analysis:'])
  })

  it('removes reasoning blocks, list markers and trailing commas', () => {
    const parsed = parseEvolutionAnswer(
      '<think>{"action":"delete","old_id":1}</think>\n- {"action": "keep", "old_id": 1},\n2. {"action": "keep", "old_id": 2}',
    )
    expect(parsed.ops).toEqual([
      { action: 'keep', oldId: 1 },
      { action: 'keep', oldId: 2 },
    ])
  })

  it('reads an answer that is one JSON array, fenced or not', () => {
    const array = '[{"action": "keep", "old_id": 1}, {"action": "create", "statement": "新记忆"}]'
    expect(parseEvolutionAnswer(array).ops.map((op) => op.action)).toEqual(['keep', 'create'])
    const multiline = '```json\n[\n  {"action": "keep", "old_id": 1},\n  {"action": "delete", "old_id": 2}\n]\n```'
    expect(parseEvolutionAnswer(multiline).ops.map((op) => op.action)).toEqual(['keep', 'delete'])
  })

  it('matches actions case-insensitively and takes reason aliases', () => {
    const parsed = parseEvolutionAnswer('{"action": "UPDATE", "old_id": "2", "statement": "x", "reason": "because"}')
    expect(parsed.ops).toEqual([{ action: 'update', oldId: '2', statement: 'x', reason: 'because', tags: undefined, strength: undefined }])
  })

  it('drops a bad optional field instead of the operation', () => {
    const parsed = parseEvolutionAnswer('{"action": "create", "statement": "x", "strength": 7, "tags": "habit"}')
    expect(parsed.ops).toEqual([{ action: 'create', statement: 'x', reason: '', tags: undefined, strength: undefined }])
    const good = parseEvolutionAnswer('{"action": "create", "statement": "x", "strength": 0.9, "tags": ["习惯"]}')
    expect(good.ops[0]).toMatchObject({ strength: 0.9, tags: ['习惯'] })
  })

  it('refuses a create or update cut off by the output limit, but not a keep', () => {
    const parsed = parseEvolutionAnswer('{"action": "keep", "old_id": 1\n{"action": "create", "statement": "每周五晚上讨论新')
    expect(parsed.ops).toEqual([{ action: 'keep', oldId: 1 }])
    expect(parsed.invalid).toEqual([{ line: '{"action": "create", "statement": "每周五晚上讨论新', reason: 'the line is cut off' }])
  })

  it('keeps an unescaped quote inside a statement', () => {
    const parsed = parseEvolutionAnswer('{"action": "create", "statement": "大家常说"好耶"", "change_reason": "口头禅"}')
    expect(parsed.ops[0]).toMatchObject({ statement: '大家常说"好耶"' })
  })

  it('empty and blank answers parse to nothing', () => {
    expect(parseEvolutionAnswer('')).toEqual({ ops: [], invalid: [], ignored: [], repaired: 0 })
    expect(parseEvolutionAnswer('\n  \n')).toEqual({ ops: [], invalid: [], ignored: [], repaired: 0 })
  })

  it('validateOp rejects non-objects', () => {
    expect(validateOp([1]).ok).toBe(false)
    expect(validateOp('keep').ok).toBe(false)
    expect(validateOp(null).ok).toBe(false)
  })
})

describe('resolveOps: ids the model was shown, and only those', () => {
  const shown = [
    memoryRow(group, 'real-a', '群组成员主要是技术背景'),
    memoryRow(group, 'real-b', '每周五晚上讨论新番动漫'),
    memoryRow(group, 'real-c', '不讨论政治话题'),
  ]

  it('maps shown integers (numbers or strings) back to rows', () => {
    const { ops, kept, rejected } = resolveOps(
      [
        { action: 'update', oldId: 2, statement: '每周五晚上讨论新番动漫，偏好科幻', reason: 'r' },
        { action: 'delete', oldId: '#3', reason: 'gone' },
        { action: 'keep', oldId: '1' },
      ],
      shown,
    )
    expect(ops).toMatchObject([
      { action: 'update', old: { id: 'real-b' } },
      { action: 'delete', old: { id: 'real-c' } },
    ])
    expect(kept).toBe(1)
    expect(rejected).toEqual([])
  })

  it('rejects ids that were not shown: real row ids, uuids, out of range, fractions', () => {
    const { ops, rejected, kept } = resolveOps(
      [
        { action: 'delete', oldId: 'real-a', reason: 'a chat message asked for it' },
        { action: 'update', oldId: 'uuid-1', statement: 'x', reason: '' },
        { action: 'delete', oldId: 4, reason: '' },
        { action: 'delete', oldId: 0, reason: '' },
        { action: 'keep', oldId: 1.5 },
        { action: 'delete', oldId: 'other-group-row', reason: '' },
      ],
      shown,
    )
    expect(ops).toEqual([])
    expect(rejected).toHaveLength(6)
    expect(kept).toBe(3)
  })

  it('lets the first change of a memory win and rejects later ones; keep never blocks a change', () => {
    const { ops, rejected } = resolveOps(
      [
        { action: 'keep', oldId: 1 },
        { action: 'update', oldId: 1, statement: '成员多为前端开发者', reason: '' },
        { action: 'delete', oldId: 1, reason: '' },
        { action: 'update', oldId: 1, statement: 'again', reason: '' },
      ],
      shown,
    )
    expect(ops).toHaveLength(1)
    expect(rejected.map((r) => r.op.action)).toEqual(['delete', 'update'])
  })

  it('treats an update that changes nothing as a keep, and refuses repeated creates', () => {
    const { ops, rejected, kept } = resolveOps(
      [
        { action: 'update', oldId: 1, statement: ' 群组成员主要是技术背景 ', reason: '' },
        { action: 'create', statement: '每周五晚上讨论新番动漫', reason: '' },
        { action: 'create', statement: '喜欢开黑', reason: '' },
        { action: 'create', statement: '喜欢开黑', reason: '' },
      ],
      shown,
    )
    expect(ops).toEqual([{ action: 'create', statement: '喜欢开黑', reason: '' }])
    expect(rejected).toHaveLength(2)
    expect(kept).toBe(3)
  })

  it('shownIndex reads integers only', () => {
    expect(shownIndex(3)).toBe(3)
    expect(shownIndex(' #12 ')).toBe(12)
    expect(shownIndex('12a')).toBeUndefined()
    expect(shownIndex('uuid-1')).toBeUndefined()
    expect(shownIndex(2.5)).toBeUndefined()
  })
})
