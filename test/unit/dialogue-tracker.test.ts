import { describe, expect, it } from 'vitest'
import { DialogueTracker } from '../../src/capture/dialogue-tracker'
import { at } from '../fakes/clock'

const alice = { platform: 'qq', userId: 'alice', guildId: 'g', channelId: 'c' }
const bob = { ...alice, userId: 'bob' }
const elsewhere = { ...alice, channelId: 'other' }

describe('DialogueTracker', () => {
  it("collects a channel's lines, each with its speaker, and the bot's answer into one dialogue", () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    expect(t.user(alice, 'Alice', '我喜欢火锅', 'm1', at(1))).toBe(1)
    expect(t.user(bob, 'Bob', '我不喜欢', 'm2', at(2))).toBe(2)
    t.user(elsewhere, 'Alice', '别处的话', 'x1', at(2))
    expect(t.user(alice, 'Alice', '尤其是四川的', 'm3', at(3))).toBe(3)
    expect(t.assistant(alice, 'bot', '记下了', 'b1')).toBe(true)
    const done = t.finish(alice)!
    expect(done.turns.map((turn) => `${turn.userId ?? 'bot'}:${turn.content}`)).toEqual([
      'alice:我喜欢火锅',
      'bob:我不喜欢',
      'alice:尤其是四川的',
      'bot:记下了',
    ])
    expect(done.sourceIds).toEqual(['m1', 'm2', 'm3', 'b1'])
    expect(done.owner).toEqual(alice)
    expect(t.finish(bob)).toBeUndefined()
    expect(t.finish(elsewhere)!.turns).toHaveLength(1)
  })

  it('ignores a bot message in a channel with nothing pending', () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    expect(t.assistant(alice, 'bot', 'hi', 'b')).toBe(false)
  })

  it('ends a dialogue that reaches its bounds instead of dropping any turn', () => {
    const t = new DialogueTracker({ maxTurns: 2, maxDialogues: 1 })
    t.user(alice, 'A', '1', 'm1', at(1))
    t.user(alice, 'A', '2', 'm2', at(2))
    t.user(alice, 'A', '3', 'm3', at(3))
    expect(t.takeFull().map((dialogue) => dialogue.sourceIds)).toEqual([['m1', 'm2']])
    expect(t.finish(alice)!.sourceIds).toEqual(['m3'])
    // a new channel past the number of dialogues ends the one that waited longest
    t.user(alice, 'A', 'x', 'm4', at(4))
    t.user(elsewhere, 'B', 'y', 'm5', at(5))
    expect(t.takeFull().map((dialogue) => dialogue.sourceIds)).toEqual([['m4']])
    expect(t.finish(alice)).toBeUndefined()
    expect(t.finish(elsewhere)!.sourceIds).toEqual(['m5'])
    expect(t.takeFull()).toEqual([])
  })

  it("drops a user's pending lines and keeps the others'", () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    t.user(alice, 'A', 'secret', 'm1', at(1))
    t.user(bob, 'B', 'hello all', 'm2', at(2))
    t.user(elsewhere, 'A', 'another secret', 'm3', at(3))
    t.drop('qq', 'alice')
    expect(t.finish(elsewhere)).toBeUndefined()
    const left = t.finish(alice)!
    expect(left.turns.map((turn) => turn.content)).toEqual(['hello all'])
    expect(left.owner.userId).toBe('bob')
  })

  it('tells which channels have been quiet since a time, and ends them at their last user message', () => {
    const t = new DialogueTracker({ maxTurns: 10, maxDialogues: 10 })
    t.user(alice, 'A', 'one', 'm1', at(10))
    t.user(elsewhere, 'B', 'two', 'm2', at(20))
    t.assistant(alice, 'bot', 'noted', 'b1')
    t.user(bob, 'B', 'three', 'm3', at(30))
    expect(t.quietSince(at(25)).map((owner) => owner.channelId)).toEqual(['other'])
    expect(t.quietSince(at(31), { platform: 'qq', channelId: 'nowhere' })).toEqual([])
    expect(t.quietSince(at(31)).map((owner) => owner.channelId)).toEqual(['c', 'other'])
    expect(t.finish(alice)!.until).toEqual(at(30))
    expect(t.size).toBe(1)
  })
})
