import { describe, expect, it } from 'vitest'
import { eventTarget } from '../../src/capture/chat-events'
import { DialogueTracker } from '../../src/capture/dialogue-tracker'
import { SentIds } from '../../src/capture/sent-ids'
import { at } from '../fakes/clock'

const alice = { platform: 'qq', userId: 'alice', guildId: 'g', channelId: 'c' }
const bob = { ...alice, userId: 'bob' }

describe('SentIds pairs a bot message stored before its send with the id its adapter reports', () => {
  function sentIds() {
    let now = 0
    const ids = new SentIds({ maxAgeMs: 1000, maxChannels: 2, now: () => now })
    return { ids, wait: (ms: number) => (now += ms) }
  }
  const bot = (id: string, content: string, channelId = 'c') => ({ id, platform: 'qq', channelId, content })

  it('takes the oldest waiting message of the channel, or the one whose text the adapter reports', () => {
    const { ids } = sentIds()
    ids.sending(bot('r1', '思考中'))
    ids.sending(bot('r2', '真正的回答'))
    ids.sending(bot('x1', '别处', 'other'))
    expect(ids.sent('qq', 'c', '真正的回答')).toBe('r2')
    expect(ids.sent('qq', 'c', '')).toBe('r1')
    expect(ids.sent('qq', 'c', '')).toBeUndefined()
    // another platform's channel of the same id is another channel
    expect(ids.sent('discord', 'other', '')).toBeUndefined()
    expect(ids.sent('qq', 'other', '<img src="x"/>')).toBe('x1')
  })

  it('keeps the turn of a message that is not stored (a memory command’s listing), so the next send pairs right', () => {
    const { ids } = sentIds()
    ids.sending(bot('', '共 3 条记忆'))
    ids.sending(bot('r1', '好的'))
    expect(ids.sent('qq', 'c', '')).toBe('')
    expect(ids.sent('qq', 'c', '')).toBe('r1')
  })

  it('forgets a message whose send is never reported, and bounds the channels it remembers', () => {
    const { ids, wait } = sentIds()
    ids.sending(bot('r1', 'a'))
    wait(1001)
    expect(ids.sent('qq', 'c', '')).toBeUndefined()
    ids.sending(bot('a', 'a', 'c1'))
    ids.sending(bot('b', 'b', 'c2'))
    ids.sending(bot('c', 'c', 'c3'))
    expect(ids.sent('qq', 'c1', '')).toBeUndefined()
    expect(ids.sent('qq', 'c3', '')).toBe('c')
  })
})

describe('DialogueTracker under recalls and edits', () => {
  it("takes a recalled answer out: the dialogue is open and unanswered again, the bot's next answer closes it", () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    t.user(alice, 'Alice', '我住在成都', 'm1', at(1))
    t.assistant(alice, 'bot', '思考中', 'think')
    expect(t.answered(alice)).toBe(true)
    expect(t.withdraw(alice, 'think')).toBe(true)
    expect(t.answered(alice)).toBe(false)
    expect(t.withdraw(alice, 'think')).toBe(false)
    t.assistant(alice, 'bot', '成都很好', 'b1')
    expect(t.finish(alice)!.sourceIds).toEqual(['m1', 'b1'])
  })

  it('drops a dialogue whose only user line is recalled, and hands it to the next speaker when its opener has none left', () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    t.user(alice, 'Alice', '我住在成都', 'm1', at(1))
    t.withdraw(alice, 'm1')
    expect(t.size).toBe(0)
    t.user(alice, 'Alice', '我住在成都', 'm2', at(2))
    t.user(bob, 'Bob', '我住在重庆', 'm3', at(3))
    t.withdraw(alice, 'm2')
    expect(t.finish(alice)!.owner.userId).toBe('bob')
  })

  it('gives an edited turn that waits its new text', () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    t.user(alice, 'Alice', '我住在成都', 'm1', at(1))
    expect(t.revise(alice, 'm1', '我住在重庆')).toBe(true)
    expect(t.revise(alice, 'nope', 'x')).toBe(false)
    expect(t.finish(alice)!.turns[0].content).toBe('我住在重庆')
  })
})

describe('eventTarget reads the message an event names', () => {
  it('needs a platform, a channel and a message id, each a non-empty string within the id bound', () => {
    expect(eventTarget({ platform: 'qq', channelId: 'c', messageId: '42' })).toEqual({ platform: 'qq', channelId: 'c', messageId: '42' })
    expect(eventTarget({ platform: 'qq', channelId: 'c', messageId: '' })).toBeUndefined()
    expect(eventTarget({ platform: 'qq', channelId: undefined as unknown as string, messageId: '42' })).toBeUndefined()
    expect(eventTarget({ platform: 'qq', channelId: 'c', messageId: 42 as unknown as string })).toBeUndefined()
    expect(eventTarget({ platform: 'qq', channelId: 'c', messageId: 'x'.repeat(256) })).toBeUndefined()
    // written out as capture stores ids
    expect(eventTarget({ platform: 'qq', channelId: 'c', messageId: 'a\u0000b' })!.messageId).toBe('a\\u0000b')
  })
})
