import type { Server as HttpServer } from 'node:http'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import type { App, Context, Session } from 'koishi'
import { Universal } from 'koishi'
import type { MessageClient, MockBot } from '@koishijs/plugin-mock'
import mock from '@koishijs/plugin-mock'
import type { Logger } from '../../src/core/observability'

/** What the fault families share: a seeded RNG, nonsense words, the echo bot, sessions and a loopback HTTP client. */

/** mulberry32: a small seeded generator, so a failing run can be run again as it was. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The seed of a run: `FAULT_SEED` or the given default. */
export function seedOf(fallback: number): number {
  const raw = Number(process.env.FAULT_SEED)
  return Number.isInteger(raw) ? raw : fallback
}

export const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]

export function shuffle<T>(rng: () => number, items: T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

const CONSONANTS = [...'bdfgklmnprstvz']
const VOWELS = [...'aeiou']

/**
 * Words no chat would hold: `count` distinct ones of `length` letters, consonant and vowel in turn
 * (so tokenizers read each as one word), none a part of another.
 */
export function nonsenseWords(rng: () => number, count: number, length = 8): string[] {
  const words: string[] = []
  while (words.length < count) {
    let word = 'q'
    for (let i = 1; i < length; i++) word += i % 2 ? pick(rng, VOWELS) : pick(rng, CONSONANTS)
    if (!words.some((other) => other.includes(word) || word.includes(other))) words.push(word)
  }
  return words
}

/** The id of the mock bot `bootApp` starts. */
export const BOT_ID = 'bot'

/** The id of the bot on a platform (`otherPlatform` names its bots after their platform). */
export const botIdOf = (platform: string) => (platform === 'mock' ? BOT_ID : `${BOT_ID}-${platform}`)

/** A reply generator: answers private messages and @-mentions (never `memory.*` commands), so dialogues end and episodes are recorded. */
export const echo = {
  name: 'fault-echo',
  apply(ctx: Context) {
    ctx.middleware((session, next) => {
      const content = session.stripped?.content ?? ''
      if (content.startsWith('memory.')) return next()
      if (!session.isDirect && !session.stripped.atSelf) return next()
      return `ok: ${content.slice(0, 200)}`
    })
  },
}

/** `@koishijs/plugin-server` in its CommonJS build, so it shares Koishi's copy of cordis. */
export const Server = createRequire(__filename)('@koishijs/plugin-server').default

/**
 * A second mock bot on another platform, so users and groups of the same ids live on two platforms
 * (its replies go out on that platform too). Call in `bootApp`'s `extra`; `ready` once the app has
 * started; `dispose` before the app stops (Koishi's bot list is gone by the time the app disposes it).
 */
export function otherPlatform(app: App, platform: string) {
  const selfId = botIdOf(platform)
  const fork = app.plugin(mock, { selfId })
  return {
    ready() {
      const bot = app.bots.find((candidate) => candidate.selfId === selfId)
      if (!bot) throw new Error(`no mock bot ${selfId}`)
      bot.platform = platform
    },
    dispose() {
      const bot = app.bots.find((candidate) => candidate.selfId === selfId)
      if (bot) bot.platform = 'mock'
      fork.dispose()
    },
  }
}

function botOf(app: App, platform: string): MockBot {
  const bot = app.bots.find((candidate) => candidate.platform === platform)
  if (!bot) throw new Error(`no bot on ${platform}`)
  return bot as unknown as MockBot
}

/** A mock client on a platform with a bot (`mock`, or one of `otherPlatform`); `guildId` undefined for a private chat. */
export function client(app: App, platform: string, userId: string, guildId?: string): MessageClient {
  const c = botOf(app, platform).client(userId, guildId)
  c.event.platform = platform
  return c
}

/** A session for a message that is not sent (for `assemblePrompt` and `searchTool`). */
export function sessionFor(app: App, at: { platform: string; userId: string; guildId?: string; content: string }): Session {
  const channel = at.guildId
    ? { id: at.guildId, type: Universal.Channel.Type.TEXT }
    : { id: `private:${at.userId}`, type: Universal.Channel.Type.DIRECT }
  return botOf(app, at.platform).session({
    type: 'message',
    platform: at.platform,
    selfId: botOf(app, at.platform).selfId,
    user: { id: at.userId, name: at.userId },
    channel,
    ...(at.guildId ? { guild: { id: at.guildId } } : {}),
    message: { id: `q-${Math.random().toString(36).slice(2)}`, content: at.content },
    timestamp: Date.now(),
  })
}

/** Koishi's koa app (from `@koishijs/plugin-server`) on an ephemeral loopback port. */
export async function listen(app: App): Promise<{ base: string; close(): Promise<void> }> {
  const koa = (app as unknown as { server: { _koa: { callback(): Parameters<typeof createServer>[1] } } }).server._koa
  const http: HttpServer = createServer(koa.callback())
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

export interface Sent {
  headers?: Record<string, string>
  /** Sent with a Content-Length. */
  body?: string | Buffer
  /** Sent chunked, one write per part. */
  chunks?: string[]
  /** The chunks written with no framing at all (a DELETE's body from Node's client told nothing). */
  unframed?: boolean
  /** The Authorization header; default none. */
  token?: string
}

export interface Answer {
  status: number
  text: string
  json: Record<string, unknown> | undefined
  headers: Record<string, string | string[] | undefined>
}

/** One request on a fresh connection, written by hand (raw paths, chunked or oversized bodies go out as given). */
export function send(base: string, method: string, path: string, sent: Sent = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      agent: false,
      headers: {
        ...(sent.token !== undefined ? { authorization: sent.token } : {}),
        ...(sent.chunks && !sent.unframed ? { 'transfer-encoding': 'chunked' } : {}),
        ...(sent.body !== undefined ? { 'content-length': String(Buffer.byteLength(sent.body)) } : {}),
        ...sent.headers,
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (part: string) => (text += part))
      res.on('end', () => {
        let json: Answer['json']
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode!, text, json, headers: res.headers })
      })
    })
    // the server may answer 413 and close before an oversized body is all written: its answer is what counts
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
    })
    if (sent.chunks) for (const part of sent.chunks) req.write(part)
    req.end(sent.body)
  })
}

/** A logger that says nothing. */
export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} }

/** The markers of `markers` that occur in `text`. */
export const markersIn = (text: string, markers: Iterable<string>) => [...markers].filter((marker) => text.includes(marker))
