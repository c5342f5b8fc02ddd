import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context, Session } from 'koishi'
import { App, h, Universal } from 'koishi'
import { afterEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import { boot, type Harness, removePlace, say } from './harness'
import { plugDatabase } from './database'
import { holding, koishiTexts, lanceTexts } from './stored-text'
import { internalsOf } from '../../src/compose'

/** A chat event of the mock platform about message `id` in a channel (`private:<user>` for a private chat). */
function chatEvent(type: string, user: string, channel: string, id: string, content?: string): Partial<Universal.Event> {
  const direct = channel.startsWith('private:')
  return {
    type,
    platform: 'mock',
    selfId: '514',
    user: { id: user, name: user },
    channel: { id: channel, type: direct ? Universal.Channel.Type.DIRECT : Universal.Channel.Type.TEXT },
    ...(!direct && { guild: { id: channel } }),
    message: { id, ...(content !== undefined && { content, elements: h.parse(content) }) },
  }
}

async function emit(app: App, event: Partial<Universal.Event>) {
  app.mock.receive(event)
  await app.memory.flush()
}

/** The stored user message holding `text`, its platform id and row. */
async function stored(app: App, text: string) {
  const rows = await app.database.get('memory_message', { role: 'user' })
  return rows.find((row) => row.content.includes(text))!
}

const facts = (app: App, user: string) => app.database.get('memory_fact', { userId: user })

describe('a message recalled or deleted in the chat', () => {
  let hs: Harness

  afterEach(() => hs?.stop())

  it('goes with the facts only it supported; a fact another message supports stays, then goes with that one', async () => {
    hs = await boot({}, (app) => app.plugin(echo))
    const { app } = hs
    await say(app, 'alice', '我住在翡翠湖边上')
    await say(app, 'alice', '我住在翡翠湖边上')
    await say(app, 'alice', '我最喜欢吃紫罗兰蛋糕')
    await app.memory.flushOutbox()
    // positive control: the index holds the words before the recall
    expect(holding(await lanceTexts(hs.dir), '翡翠湖')).toContain('messages')
    expect(JSON.stringify(await app.memory.retrieve('alice', '翡翠湖', { platform: 'mock' }))).toContain('翡翠湖')
    const lake = (await facts(app, 'alice')).find((row) => row.content.includes('翡翠湖'))!
    expect(lake.sourceIds.length).toBeGreaterThan(1)
    const [first, second] = (await app.database.get('memory_message', { userId: 'alice' })).filter((row) => row.content.includes('翡翠湖'))

    await emit(app, chatEvent('message-deleted', 'alice', 'private:alice', first.messageId))
    expect(await app.database.get('memory_message', { id: first.id })).toEqual([])
    // the bot's answer to it goes with it, as a forget takes it
    expect(await app.database.get('memory_message', { replyMessageId: first.messageId, channelId: 'private:alice' })).toEqual([])
    const kept = (await facts(app, 'alice')).find((row) => row.id === lake.id)!
    expect(kept.sourceIds).not.toContain(first.id)
    expect(kept.sourceIds).toContain(second.id)

    await emit(app, chatEvent('message-deleted', 'alice', 'private:alice', second.messageId))
    const left = await facts(app, 'alice')
    expect(left.map((row) => row.content).join()).not.toContain('翡翠湖')
    expect(left.map((row) => row.content).join()).toContain('紫罗兰蛋糕')
    expect(holding(await koishiTexts(app), '翡翠湖')).toEqual([])
    await app.memory.flushOutbox()
    expect(holding(await lanceTexts(hs.dir), '翡翠湖')).toEqual([])
    const [listing] = await app.mock.client('alice').receive('memory.list')
    expect(listing).not.toContain('翡翠湖')
    expect(listing).toContain('紫罗兰蛋糕')
    const recalled = await app.memory.retrieve('alice', '翡翠湖', { platform: 'mock' })
    expect(JSON.stringify(recalled)).not.toContain('翡翠湖')
  })

  it('is looked for only in its own platform and channel; unknown, foreign and malformed events change nothing', async () => {
    hs = await boot({ capture: { mode: 'deny', channels: ['g-off'] } }, (app) => app.plugin(echo))
    const { app } = hs
    await say(app, 'alice', '<at id="514"/> 我住在翡翠湖边上', 'g1')
    const row = await stored(app, '翡翠湖')
    const before = await app.database.get('memory_message', {})
    await emit(app, chatEvent('message-deleted', 'alice', 'g2', row.messageId))
    await emit(app, chatEvent('message-deleted', 'alice', 'g-off', row.messageId))
    await emit(app, chatEvent('message-deleted', 'alice', 'g1', 'no-such-id'))
    await emit(app, { ...chatEvent('message-deleted', 'alice', 'g1', row.messageId), platform: 'discord' })
    await emit(app, { ...chatEvent('message-deleted', 'alice', 'g1', row.messageId), channel: undefined })
    await emit(app, { ...chatEvent('message-deleted', 'alice', 'g1', ''), message: undefined })
    await emit(app, chatEvent('message-updated', 'alice', 'g1', row.messageId))
    expect(await app.database.get('memory_message', {})).toEqual(before)
    expect((await facts(app, 'alice')).map((row) => row.content).join()).toContain('翡翠湖')
    // positive control: the same event in its own channel erases it
    await emit(app, chatEvent('message-deleted', 'bob', 'g1', row.messageId))
    expect(await app.database.get('memory_message', { id: row.id })).toEqual([])
  })
})

/**
 * A bot in the manner of ChatLuna: to "慢慢想" it sends a thinking message, which its adapter reports sent
 * (Koishi's `send`, with the platform's id), recalls it, and then answers.
 */
function thinkingBot(ctx: Context) {
  ctx.middleware(async (session, next) => {
    if (!session.isDirect || !session.content?.includes('慢慢想')) return next()
    await session.send('思考中，请稍候')
    const sent = session.bot.session({ ...session.event, type: 'send', message: { id: 'think-1', content: '思考中，请稍候' } }) as Session
    ctx.emit(sent, 'send', sent)
    ctx.root.mock.receive(chatEvent('message-deleted', '514', session.channelId!, 'think-1'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    return '翡翠湖边上风景很好'
  })
}

describe("the bot's message recalled within seconds", () => {
  let hs: Harness

  afterEach(() => hs?.stop())

  it('is as if never sent: the dialogue stays open for the real answer and keeps nothing of it', async () => {
    hs = await boot({}, (app) => app.plugin(thinkingBot))
    const { app } = hs
    await app.mock.client('alice').receive('我住在翡翠湖边上，慢慢想')
    await app.memory.flush()
    expect(await app.database.get('memory_message', { content: { $regex: '思考中' } })).toEqual([])
    expect(holding(await koishiTexts(app), '思考中')).toEqual([])
    const answer = (await app.database.get('memory_message', { role: 'assistant' })).find((row) => row.content.includes('风景'))!
    const [fact] = (await facts(app, 'alice')).filter((row) => row.content.includes('翡翠湖'))
    // the dialogue ended with the real answer, not with the thinking message
    expect(fact.sourceIds).toContain(answer.id)
  })
})

describe('a message edited in the chat', () => {
  let hs: Harness

  afterEach(() => hs?.stop())

  it('is stored as edited and what only its old text said is learnt again from the new text', async () => {
    hs = await boot({}, (app) => app.plugin(echo))
    const { app } = hs
    await say(app, 'alice', '我住在翡翠湖边上')
    await say(app, 'alice', '我最喜欢吃紫罗兰蛋糕')
    const row = await stored(app, '翡翠湖')
    expect((await facts(app, 'alice')).map((fact) => fact.content).join()).toContain('翡翠湖')

    await emit(app, chatEvent('message-updated', 'alice', 'private:alice', row.messageId, '我住在青岛'))
    const [edited] = await app.database.get('memory_message', { id: row.id })
    expect(edited.content).toBe('我住在青岛')
    const now = (await facts(app, 'alice')).map((fact) => fact.content).join()
    expect(now).not.toContain('翡翠湖')
    expect(now).toContain('青岛')
    expect(now).toContain('紫罗兰蛋糕')
    expect(holding(await koishiTexts(app), '翡翠湖').filter((table) => table !== 'memory_message')).toEqual([])
  })

  it('that waits in an open dialogue is memorised with its new text only', async () => {
    hs = await boot({ memorize: { quietSeconds: 3600 } })
    const { app } = hs
    await say(app, 'alice', '我住在翡翠湖边上', 'g1')
    const row = await stored(app, '翡翠湖')
    await emit(app, chatEvent('message-updated', 'alice', 'g1', row.messageId, '我住在青岛'))
    internalsOf(app.memory).capture.sweep(new Date(Date.now() + 7_200_000), 1)
    await app.memory.flush()
    const now = (await facts(app, 'alice')).map((fact) => fact.content).join()
    expect(now).toContain('青岛')
    expect(now).not.toContain('翡翠湖')
  })
})

describe('a message table from before the bot messages kept their sent id', () => {
  let hs: Harness | undefined
  let dir: string

  afterEach(async () => {
    await hs?.stop()
    await removePlace(dir)
  })

  it('gets the column at the next start, its rows with none, and a recall still finds them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-events-'))
    const old = new App()
    await plugDatabase(old, dir, true)
    old.model.extend(
      'memory_message',
      {
        id: 'string(255)',
        messageId: 'string(127)',
        platform: 'string(63)',
        guildId: 'string(127)',
        channelId: 'string(127)',
        userId: 'string(127)',
        userName: 'string(255)',
        content: 'text',
        role: 'string(15)',
        isMentionBot: 'boolean',
        isCommand: { type: 'boolean', initial: false },
        replyMessageId: 'string(127)',
        rootMessageId: 'string(127)',
        topicId: 'string(63)',
        createdAt: 'timestamp',
      },
      { primary: 'id' },
    )
    await old.start()
    const id = 'mock:private:alice:old-1'
    const said = { messageId: 'old-1', platform: 'mock', guildId: '', channelId: 'private:alice', userId: 'alice', userName: 'alice' }
    const fields = { role: 'user', isMentionBot: false, isCommand: false, replyMessageId: '', rootMessageId: 'old-1', topicId: '' }
    await old.database.upsert('memory_message', [{ id, ...said, ...fields, content: '我住在翡翠湖边上', createdAt: new Date() }] as never)
    await old.stop()

    hs = await boot({}, undefined, { dir, keep: true })
    const [row] = await hs.app.database.get('memory_message', { id })
    expect(row.sentId ?? '').toBe('')
    await emit(hs.app, chatEvent('message-deleted', 'alice', 'private:alice', 'old-1'))
    expect(await hs.app.database.get('memory_message', { id })).toEqual([])
  })
})
