/**
 * A deterministic group chat for the context-building bench, as the capture path would have stored
 * it: a dozen members (most of them write Chinese, some English, everyone mixes now and then), chat
 * lines about food, cities, hobbies, games and pets in both languages, short reactions, replies to a
 * recent line, a few bot commands and the bot's answers. Talk comes in bursts, lines seconds apart
 * with quiet hours between; timestamps are whole seconds, as many platforms give them, so some lines
 * share one. Each burst is one topic.
 */
import type { MessageRow } from '../src/messages'
import { messageRowId } from '../src/messages'
import type { Words } from './synthetic-facts'
import { EN, rng, ZH } from './synthetic-facts'

export interface ChatMember {
  userId: string
  name: string
  zh: boolean
}

export interface ChatLine {
  row: MessageRow
  /** The thing the line talks about (a food, a city, a game …), when it names one. */
  subject?: string
}

export interface ChatOptions {
  platform: string
  channelId: string
  messages: number
  /** Time of the last line. */
  end: Date
  seed: number
}

type Line = (w: Words, pick: <T>(xs: T[]) => T) => { text: string; subject?: string }

const about =
  (template: (x: string) => string, list: (w: Words) => string[]): Line =>
  (w, pick) => {
    const subject = pick(list(w))
    return { text: template(subject), subject }
  }

const ZH_LINES: Line[] = [
  about(
    (x) => `我最近喜欢上了${x}`,
    (w) => w.food,
  ),
  about(
    (x) => `今晚吃${x}怎么样`,
    (w) => w.food,
  ),
  about(
    (x) => `周末去${x}玩了两天，人好多`,
    (w) => w.city,
  ),
  about(
    (x) => `有人知道${x}哪里好吃吗`,
    (w) => w.city,
  ),
  about(
    (x) => `最近迷上了${x}`,
    (w) => w.hobby,
  ),
  about(
    (x) => `我养了${x}，超可爱`,
    (w) => w.pet,
  ),
  about(
    (x) => `有人一起玩${x}吗`,
    (w) => w.game,
  ),
  about(
    (x) => `${x}的新版本出了，大家更新了吗`,
    (w) => w.game,
  ),
  about(
    (x) => `我对${x}过敏，别给我带`,
    (w) => w.thing,
  ),
  about(
    (x) => `我以前在那边当${x}`,
    (w) => w.job,
  ),
]
const EN_LINES: Line[] = [
  about(
    (x) => `just tried ${x} for the first time, so good`,
    (w) => w.food,
  ),
  about(
    (x) => `I'm flying to ${x} next week`,
    (w) => w.city,
  ),
  about(
    (x) => `anyone into ${x}? been doing it every weekend`,
    (w) => w.hobby,
  ),
  about(
    (x) => `I have ${x} and it keeps me busy`,
    (w) => w.pet,
  ),
  about(
    (x) => `who's up for ${x} tonight?`,
    (w) => w.game,
  ),
  about(
    (x) => `I can't eat ${x}, allergic`,
    (w) => w.thing,
  ),
  about(
    (x) => `thinking about switching jobs, maybe become a ${x}`,
    (w) => w.job,
  ),
]
/** Lines that mix both languages, as bilingual groups write. */
const MIXED_LINES: Line[] = [
  about(
    (x) => `${x}今晚开黑吗 anyone?`,
    () => EN.game,
  ),
  about(
    (x) => `周末去${x} hiking 吗`,
    () => ZH.city,
  ),
  about(
    (x) => `这家${x}真的 underrated`,
    () => ZH.food,
  ),
  () => ({ text: '今天的standup取消了吗' }),
  () => ({ text: '这个bug在prod上复现了，谁看一下' }),
  () => ({ text: '刚下班，今天 deadline 太多了' }),
]
const REACTIONS = [
  '哈哈哈',
  '确实',
  '真的假的',
  '+1',
  '好的',
  '收到',
  '笑死',
  '我也是',
  '？',
  'lol',
  'same here',
  'nice',
  'haha true',
  'ok',
  '666',
]
const COMMANDS = ['memory.stats', 'help', 'memory.list']
const BOT_LINES = ['好的，我记下了', '我在，有什么可以帮你？', 'Sure, noted.', '根据之前的聊天，大家周末想去爬山。']

const BOT: ChatMember = { userId: 'bot', name: 'bot', zh: true }

export function makeMembers(count: number, seed: number): ChatMember[] {
  const random = rng(seed)
  const zhNames = ['小明', '小红', '阿强', '王芳', '李雷', '韩梅梅', '张伟', '刘洋', '陈静', '赵磊']
  const enNames = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank']
  return Array.from({ length: count }, (_, i) => {
    const zh = random() < 0.7
    const names = zh ? zhNames : enNames
    return { userId: String(10_000_000 + i * 7919), name: `${names[i % names.length]}${i >= names.length ? i : ''}`, zh }
  })
}

/** The chat, oldest first: every line as a stored row, ids `m<n>`, topic ids `<channel>-t<burst>`. */
export function makeChat(members: ChatMember[], options: ChatOptions): ChatLine[] {
  const random = rng(options.seed)
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
  const lines: ChatLine[] = []
  let time = 0
  let burst = 0
  let left = 0
  let talking: ChatMember[] = []
  for (let i = 0; i < options.messages; i++) {
    if (left === 0) {
      // a quiet stretch of 20 minutes to 12 hours, then a burst of 10–150 lines among a few members
      time += i ? Math.round(1200 + random() * 42_000) : 0
      burst++
      left = 10 + Math.floor(random() * 140)
      talking = members.filter(() => random() < 0.35)
      if (talking.length < 2) talking = [members[0], members[1]]
    } else {
      // seconds apart; about one line in twenty lands on the same second as the one before
      time += Math.floor(-Math.log(1 - random()) * 20)
    }
    left--
    const messageId = `m${i}`
    const recent = lines.slice(-8)
    const roll = random()
    const speaker = roll < 0.03 ? BOT : pick(talking)
    let text: string
    let subject: string | undefined
    let isCommand = false
    if (speaker === BOT) text = pick(BOT_LINES)
    else if (roll < 0.04) {
      text = pick(COMMANDS)
      isCommand = true
    } else if (roll < 0.3) text = pick(REACTIONS)
    else {
      const zh = random() < 0.15 ? !speaker.zh : speaker.zh
      ;({ text, subject } = pick(random() < 0.15 ? MIXED_LINES : zh ? ZH_LINES : EN_LINES)(zh ? ZH : EN, pick))
    }
    const replied = recent.length && !isCommand && random() < 0.08 ? pick(recent).row : undefined
    lines.push({
      row: {
        id: messageRowId(options.platform, options.channelId, messageId),
        messageId,
        platform: options.platform,
        guildId: options.channelId,
        channelId: options.channelId,
        userId: speaker.userId,
        userName: speaker.name,
        content: text,
        role: speaker === BOT ? 'assistant' : 'user',
        isMentionBot: speaker !== BOT && random() < 0.02,
        isCommand,
        replyMessageId: replied?.messageId ?? '',
        rootMessageId: replied?.rootMessageId ?? messageId,
        topicId: `${options.channelId}-t${burst}`,
        createdAt: new Date(time * 1000),
      },
      subject,
    })
  }
  const shift = options.end.getTime() - time * 1000
  for (const line of lines) line.row.createdAt = new Date(line.row.createdAt.getTime() + shift)
  return lines
}

/** A new message that asks about what `line` said, in the asker's language. */
export function askAbout(line: ChatLine & { subject: string }, asker: ChatMember, random: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
  const x = line.subject
  const said = line.row.userName
  return pick(
    asker.zh
      ? [`之前谁说过${x}来着？`, `上次聊的${x}后来怎么样了`, `${x}那个事，还有人记得吗`, `@${said} 你之前说的${x}是哪家`]
      : [`who was talking about ${x} earlier?`, `what happened with the ${x} thing?`, `hey ${said}, didn't you mention ${x} a while ago?`],
  )
}
