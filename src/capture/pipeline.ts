import type { Context, Session } from 'koishi'
import type { ContextLog, TermStats } from '../context'
import type { EpisodicMemory } from '../episodes'
import type { Dialogue, MemorizeOutcome } from '../facts'
import type { Counters, Logger } from '../core/observability'
import type { KeyedQueue } from '../core/keyed-queue'
import type { KoishiMessageStore, KoishiWatermarkStore, MessageIndex, MessageRow, MessageStore } from '../messages'
import { messageRowId } from '../messages'
import type { RollingSummary } from '../channel-summaries'
import type { TopicAttributor } from '../topics'
import type { TopicSummaries } from '../topic-summaries'
import { DialogueTracker } from './dialogue-tracker'
import type { CaptureJournal } from './journal'
import { MemorizeBacklog } from './memorize-backlog'
import { replayJournal } from './journal-replay'
import { SentIds } from './sent-ids'
import { MessageRecorder } from './recorder'
import type { MessageSink } from './store-rows'
import type { PlaceholderLocale } from './render'
import { renderPlainText } from './render'
import { cleanText } from '../text/clean'
import { localMessageId, mentionsBot, ownerOf, rowOf, speakerName } from './session-rows'
import type { SpeakerRef } from '../scope'
import type { WaitingReport } from './waiting'
import { cleanId } from '../scope'

export interface CaptureOptions {
  /** Which channels are recorded: all, only the listed ones, or all but the listed ones. */
  mode: 'all' | 'allow' | 'deny'
  channels: string[]
  placeholders: PlaceholderLocale
  /** Whether finished dialogues are memorised at all. */
  memorize: boolean
  /** A private chat's dialogue ends after this many user messages (0: never by count). */
  privateEvery: number
  /** A group chat's dialogue ends after this many messages of the user (0: never by count). */
  groupEvery: number
  /** A group dialogue ends when nobody has said anything in it for this long (0: never by silence). */
  quietMs: number
  /** A private dialogue ends when its user has said nothing for this long (0: never by silence). */
  privateQuietMs: number
  /** A dialogue ends when the bot answers it: once the answer has stood `replyGraceMs`, or the user speaks again. */
  afterReply: boolean
  /** How long the bot's answer may still be recalled as if never sent (a "thinking…" message) before it ends the dialogue; default `REPLY_GRACE_MS`. */
  replyGraceMs?: number
  /** Wait before a dialogue whose memorising failed is tried again (doubled at each failure). */
  retryMs: number
  /** A dialogue that failed this often is given up. */
  maxAttempts: number
  commandPrefixes: string[]
  topics: boolean
  summaries: boolean
}

export interface CaptureDeps {
  options: CaptureOptions
  /** Writes captured rows to the database. */
  write(rows: MessageRow[]): Promise<void>
  /** Where captured rows wait on disk until they are stored. */
  journal?: CaptureJournal
  messages: Pick<MessageStore, 'byIds' | 'around'> & Pick<KoishiMessageStore, 'setSentId'>
  /** How far each user's messages have been memorised; what lies past it is read back at start. */
  watermarks: Pick<KoishiWatermarkStore, 'advance' | 'unmemorised'>
  messageIndex: Pick<MessageIndex, 'add'>
  /** Loads the index scopes a reply to this message reads into memory (`ScopeCache.warm`). */
  warm?(row: MessageRow): void
  termStats: Pick<TermStats, 'add'>
  attributor: Pick<TopicAttributor, 'attribute'>
  rolling: Pick<RollingSummary, 'note' | 'refresh'>
  summaries: Pick<TopicSummaries, 'onTopicMessages'>
  episodes: Pick<EpisodicMemory, 'record'>
  contextLog: Pick<ContextLog, 'reply'>
  queue: KeyedQueue
  /** The post-dialogue chain (long-term memory). */
  memorize(dialogue: Dialogue): Promise<MemorizeOutcome>
  /** Runs work a message caused with its model calls charged to the message's group (or private chat). */
  chargeTo?<T>(row: MessageRow, work: () => Promise<T>): Promise<T>
  /** The bot's command `name` calls (an alias resolved), if it is one. */
  commandName(name: string, session: Session): string | undefined
  schedule(callback: () => void, ms: number): () => void
  counters: Counters
  logger: Logger
}

/** A turn said while the plugin runs, on its way into its channel's dialogue. */
interface LiveTurn {
  role: 'user' | 'assistant'
  /** The user whose dialogue it is (the one the bot answers, for the bot's turn). */
  owner: SpeakerRef
  name: string
  content: string
  id: string
  at: Date
}

/**
 * Capture as one downward flow: a session becomes a stored row (recorder), then feeds short-term
 * memory (term statistics, topic attribution, the rolling summary, episodes) and, when a dialogue
 * ends, long-term memory (the post-dialogue chain). Nothing here waits on the reply path: the
 * listeners append and queue.
 */
export class CapturePipeline {
  readonly recorder: MessageRecorder
  private readonly tracker = new DialogueTracker({ maxTurns: 60, maxDialogues: 5000 })
  private readonly backlog: MemorizeBacklog
  /** Captured rows per channel waiting for topic attribution, attributed in order by one job. */
  private readonly unattributed = new Map<string, MessageRow[]>()
  /**
   * Live turns said before `restore` has read back the last run's dialogues (it runs after the start, in
   * the background): they join their dialogues after the turns read back, so none is out of order or twice.
   */
  private held?: LiveTurn[] = []
  /** The bot's messages waiting for the id their adapter gives them. */
  private readonly sentIds = new SentIds({ maxAgeMs: 60_000, maxChannels: 5000, now: () => Date.now() })
  /** Dialogues the bot has answered, by channel: each ends when its timer fires, unless the answer is recalled first. */
  private readonly answered = new Map<string, () => void>()

  /** Where captured rows are stored, live or from the journal. */
  private readonly sink: MessageSink

  constructor(private readonly deps: CaptureDeps) {
    this.sink = {
      write: async (rows) => {
        await deps.write(rows)
        // indexed for semantic neighbours once stored; never waits
        deps.messageIndex.add(rows)
      },
      answers: () => deps.messages.byIds(['']).then(() => true),
    }
    this.recorder = new MessageRecorder(this.sink, {
      batchSize: 64,
      intervalMs: 500,
      maxBuffered: 10_000,
      rootCacheSize: 20_000,
      schedule: deps.schedule,
      counters: deps.counters,
      logger: deps.logger,
      journal: deps.journal,
    })
    this.backlog = new MemorizeBacklog({
      queue: deps.queue,
      memorize: deps.memorize,
      done: (dialogue) => deps.watermarks.advance(dialogue.owner, dialogue.until),
      before: () => this.recorder.flush(),
      schedule: deps.schedule,
      retryMs: deps.options.retryMs,
      maxAttempts: deps.options.maxAttempts,
      counters: deps.counters,
      logger: deps.logger,
    })
  }

  /** Listens to what users say and what the bot sends. */
  listen(ctx: Context): void {
    ctx.on('message', (session) => this.incoming(session))
    ctx.on('before-send', (session, options) => this.outgoing(session, options?.session as Session | undefined))
    ctx.on('send', (session) => this.sent(session))
  }

  /** Writes what is buffered; resolves when every earlier write has finished. */
  flush(): Promise<void> {
    return this.recorder.flush()
  }

  /** Drops what waits of a user (their words are being erased) and writes the rest. */
  async forgetUser(platform: string, userId: string): Promise<void> {
    this.tracker.drop(platform, userId)
    if (this.held)
      this.held = this.held.filter((turn) => turn.role !== 'user' || turn.owner.platform !== platform || turn.owner.userId !== userId)
    this.backlog.dropUser(platform, userId)
    this.recorder.dropUser(platform, userId)
    this.deps.journal?.forgetUser(platform, userId)
    await this.recorder.flush()
  }

  incoming(session: Session): void {
    if (!session.channelId || session.userId === session.selfId || !this.records(session)) return
    const { options } = this.deps
    const content = renderPlainText(session.elements ?? [], options.placeholders)
    const row = this.row(session, {
      messageId: session.messageId || localMessageId(),
      userId: session.userId!,
      userName: speakerName(session) || session.userId!,
      content,
      role: 'user',
      isMentionBot: mentionsBot(session),
      isCommand: Boolean(this.command(session)),
      replyMessageId: session.quote?.id ?? '',
      createdAt: new Date(session.timestamp || Date.now()),
    })
    this.recorder.add(row)
    if (row.isCommand) return
    this.deps.warm?.(row)
    this.shortTerm(row)
    if (!options.memorize || !content) return
    const said = cleanText(renderPlainText(session.elements ?? [], options.placeholders, session.selfId))
    this.track({ role: 'user', owner: ownerOf(session), name: row.userName, content: said, id: row.id, at: row.createdAt })
  }

  outgoing(session: Session, replyTo?: Session): void {
    if (!session.channelId || !this.records(session)) return
    const content = renderPlainText(session.elements ?? [], this.deps.options.placeholders)
    if (!content) return
    // what a command prints is its output, not conversation: stored and marked like the invocation;
    // what memory's own commands print is memory itself (a listing, a profile), which a forget must
    // not find copied into the chat history: it is not stored
    const command = replyTo && replyTo.userId !== replyTo.selfId ? this.command(replyTo) : undefined
    if (command && isMemoryCommand(command)) {
      // not stored, but its send is reported like any other: it keeps its place among the sends that wait
      this.sentIds.sending({ id: '', platform: cleanId(session.platform), channelId: cleanId(session.channelId), content })
      return
    }
    const answersCommand = Boolean(command)
    const row = this.row(session, {
      messageId: localMessageId(),
      userId: session.selfId,
      userName: session.bot?.user?.name || session.selfId,
      content,
      role: 'assistant',
      isMentionBot: false,
      isCommand: answersCommand,
      replyMessageId: replyTo?.messageId ?? '',
      createdAt: new Date(),
    })
    this.recorder.add(row)
    this.sentIds.sending(row)
    if (answersCommand) return
    this.shortTerm(row)
    if (replyTo?.messageId && replyTo.userId !== replyTo.selfId) this.exchange(replyTo, row)
    if (!replyTo?.userId || replyTo.userId === replyTo.selfId || !this.deps.options.memorize) return
    this.track({ role: 'assistant', owner: ownerOf(replyTo), name: row.userName, content: row.content, id: row.id, at: row.createdAt })
  }

  /** A live turn joins its channel's dialogue; while the dialogues of the last run are read back, it waits behind them. */
  private track(turn: LiveTurn): void {
    if (this.held) this.held.push(turn)
    else this.apply(turn)
  }

  private apply(turn: LiveTurn): void {
    const { options } = this.deps
    const { owner } = turn
    if (turn.role === 'user') {
      // the bot's answer stood: what the user says next opens a new dialogue
      if (this.answered.has(channelKey(owner))) this.finishDialogue(owner)
      const waiting = this.tracker.user(owner, turn.name, turn.content, turn.id, turn.at)
      const every = owner.guildId ? options.groupEvery : options.privateEvery
      if (every > 0 && waiting >= every) this.finishDialogue(owner)
    } else if (this.tracker.assistant(owner, turn.name, turn.content, turn.id, turn.at) && options.afterReply) {
      this.finishAnswered(owner)
    }
    this.memorizeFull()
  }

  private row(session: Session, fields: Parameters<typeof rowOf>[1]): MessageRow {
    const root = fields.replyMessageId
      ? this.recorder.rootOf(session.platform, session.channelId!, fields.replyMessageId)
      : fields.messageId
    return rowOf(session, fields, root)
  }

  /** Whether capture records the session's channel (`capture.mode`, `capture.channels`). */
  records(session: Session): boolean {
    const { mode, channels } = this.deps.options
    if (mode === 'all') return true
    const listed = channels.includes(session.channelId!) || channels.includes(`${session.platform}:${session.channelId}`)
    return mode === 'allow' ? listed : !listed
  }

  /** The bot's command the message calls (with or without a prefix), if any. */
  private command(session: Session): string | undefined {
    let text = (session.stripped?.content ?? '').trim()
    const prefix = this.deps.options.commandPrefixes.find((prefix) => prefix && text.startsWith(prefix))
    if (prefix) text = text.slice(prefix.length)
    const name = text.split(/\s/, 1)[0]
    return name ? this.deps.commandName(name, session) : undefined
  }

  /** What a stored message feeds besides its table: term statistics, topics, the rolling summary. */
  private shortTerm(row: MessageRow): void {
    const { termStats, rolling, queue } = this.deps
    const channel = { platform: row.platform, guildId: row.guildId, channelId: row.channelId }
    if (row.content) termStats.add(channel, row.content)
    this.attributeLater(row)
    if (rolling.note(channel)) {
      queue.push(`rolling:${row.platform}:${row.channelId}`, () =>
        this.charged(row, () => this.recorder.flush().then(() => rolling.refresh(channel))),
      )
    }
  }

  /** The bot answered a user's message: the exchange becomes an episode and the context log learns the reply. */
  private exchange(replyTo: Session, reply: MessageRow): void {
    const { contextLog, episodes, messages, queue } = this.deps
    void contextLog.reply({ platform: reply.platform, channelId: reply.channelId }, replyTo.messageId!, reply.content)
    const userRowId = messageRowId(replyTo.platform, replyTo.channelId!, replyTo.messageId!)
    queue.push(`episode:${replyTo.platform}:${replyTo.userId}`, async () => {
      await this.recorder.flush()
      const rows = await messages.byIds([userRowId, reply.id])
      const user = rows.find((row) => row.id === userRowId)
      // a reply recalled meanwhile (a "thinking…" message) is no exchange
      if (user && !user.isCommand && rows.some((row) => row.id === reply.id)) await episodes.record(user, reply)
    })
  }

  private charged<T>(row: MessageRow, work: () => Promise<T>): Promise<T> {
    return this.deps.chargeTo ? this.deps.chargeTo(row, work) : work()
  }

  /** Queues topic attribution; one job per channel takes every row waiting there, in order. */
  private attributeLater(row: MessageRow): void {
    const { options, queue, attributor, summaries, counters } = this.deps
    if (!options.topics) return
    const key = `${row.platform}:${row.channelId}`
    const waiting = this.unattributed.get(key)
    if (waiting) {
      if (waiting.length < 1000) waiting.push(row)
      else counters.inc('topic.dropped')
      return
    }
    this.unattributed.set(key, [row])
    const queued = queue.push(`topic:${key}`, async () => {
      const rows = this.unattributed.get(key) ?? []
      this.unattributed.delete(key)
      // attribution writes the topic id onto the stored rows
      await this.recorder.flush()
      const topicIds = new Set<string>()
      for (const next of rows) topicIds.add((await this.charged(next, () => attributor.attribute(next))).topicId)
      // the count trigger may call the LLM: a job of its own, never inside attribution
      if (options.summaries) queue.push(`summaries:${key}`, () => summaries.onTopicMessages([...topicIds]))
    })
    if (!queued) this.unattributed.delete(key)
  }

  /**
   * Ends the dialogues quiet for their chat's quiet time by `now`: `quietMs` in a group, `privateQuietMs`
   * in private (a replay passes its own clock and quiet times).
   */
  sweep(now = new Date(), quietMs = this.deps.options.quietMs, privateQuietMs = this.deps.options.privateQuietMs): void {
    if (!this.deps.options.memorize) return
    for (const [quiet, inGroup] of [
      [quietMs, true],
      [privateQuietMs, false],
    ] as const) {
      if (quiet <= 0) continue
      for (const owner of this.tracker.quietSince(new Date(now.getTime() - quiet))) {
        if (Boolean(owner.guildId) === inGroup) this.finishDialogue(owner)
      }
    }
  }

  /**
   * What of `userId`'s waits to be memorised in the chats `pick` picks: their lines in dialogues that have
   * not ended, when the quiet time ends the last of them (none when silence ends no dialogue there), and
   * how many dialogues of those chats have ended and wait for the memorising job.
   */
  waitingOf(userId: string, pick: (owner: SpeakerRef) => boolean): WaitingReport {
    let messages = 0
    let dueAt: Date | undefined
    const count = (owner: SpeakerRef, turns: number, lastUserAt: Date) => {
      messages += turns
      const due = this.quietEnd(owner, lastUserAt)
      if (due && (!dueAt || due > dueAt)) dueAt = due
    }
    for (const entry of this.tracker.waitingOf(pick, userId)) count(entry.owner, entry.userTurns, entry.lastUserAt)
    // said since the start, before the last run's dialogues are read back: they join theirs then
    for (const turn of this.held ?? []) {
      if (turn.role === 'user' && turn.owner.userId === userId && pick(turn.owner)) count(turn.owner, 1, turn.at)
    }
    return { messages, dueAt, memorising: this.backlog.waitingOf(pick) }
  }

  /** When silence ends a dialogue of `owner` whose user last spoke at `lastUserAt`; none when silence ends none there. */
  private quietEnd(owner: SpeakerRef, lastUserAt: Date): Date | undefined {
    const quiet = owner.guildId ? this.deps.options.quietMs : this.deps.options.privateQuietMs
    return quiet > 0 ? new Date(lastUserAt.getTime() + quiet) : undefined
  }

  /** Ends now every dialogue `pick` picks (every one when left out); returns how many, and their users' lines. */
  finishNow(pick: (owner: SpeakerRef) => boolean = () => true): { dialogues: number; messages: number } {
    const waiting = this.tracker.waitingOf(pick)
    for (const entry of waiting) this.finishDialogue(entry.owner)
    return { dialogues: waiting.length, messages: waiting.reduce((sum, entry) => sum + entry.userTurns, 0) }
  }

  /** Topics closed: the dialogues of their channels with nothing said since the topic's last message end. */
  topicsClosed(topics: { platform: string; channelId: string; lastMessageAt: Date }[]): void {
    if (!this.deps.options.memorize) return
    for (const topic of topics) {
      const quiet = this.tracker.quietSince(new Date(topic.lastMessageAt.getTime() + 1), topic)
      for (const owner of quiet) this.finishDialogue(owner)
    }
  }

  /**
   * Stores what an earlier run captured but had not written when it ended (killed, or stopped after its
   * database), then deletes the journal files (`replayJournal`). Returns how many rows were stored.
   */
  async replayJournal(): Promise<number> {
    const { journal, messages, counters, logger } = this.deps
    if (!journal) return 0
    const { stored } = await replayJournal({ journal, sink: this.sink, messages, counters, logger })
    if (stored) logger.info('%d messages captured before the last stop were stored', stored)
    return stored
  }

  /**
   * Reads back what users said since their watermark (within `since`): the dialogues a restart
   * interrupted. They end by silence like any other. Returns how many messages were read.
   */
  async restore(since: Date, limit = 5000): Promise<number> {
    try {
      if (!this.deps.options.memorize) return 0
      return await this.readBack(since, limit)
    } finally {
      // the turns said meanwhile follow the ones read back, in the order they came
      const held = this.held ?? []
      this.held = undefined
      for (const turn of held) this.apply(turn)
    }
  }

  private async readBack(since: Date, limit: number): Promise<number> {
    const read = await this.deps.watermarks.unmemorised(since, limit)
    // a turn captured since the start is stored before it is read back: it joins its dialogue once, live
    const live = new Set(this.held?.map((turn) => turn.id))
    const rows = read.filter((row) => !live.has(row.id))
    const owners = new Map<string, SpeakerRef>()
    for (const row of rows) {
      const key = `${row.platform}:${row.channelId}:${row.messageId}`
      if (row.role === 'user') {
        const owner = { platform: row.platform, userId: row.userId, guildId: row.guildId, channelId: row.channelId }
        owners.set(key, owner)
        this.tracker.user(owner, row.userName, row.content, row.id, row.createdAt)
      } else {
        if (owners.has(`${row.platform}:${row.channelId}:${row.replyMessageId}`)) {
          this.tracker.assistant(row, row.userName, row.content, row.id, row.createdAt)
        }
      }
    }
    this.memorizeFull()
    if (rows.length) this.deps.logger.info('%d messages wait to be memorised since the last run', rows.length)
    return rows.length
  }

  /** Dialogues (one per channel) that wait to end. */
  get waiting(): number {
    return this.tracker.size
  }

  /** Finished dialogues that wait to be memorised (or to be tried again). */
  get backlogSize(): number {
    return this.backlog.size
  }

  /** At stop: forgets what waits to be memorised (the watermarks bring it back) and what cannot be stored now stays in the journal. */
  stop(): void {
    this.backlog.clear()
    this.recorder.stopping = true
  }

  /** Dialogues that filled up end by themselves: they are memorised like any other. */
  private memorizeFull(): void {
    for (const dialogue of this.tracker.takeFull()) this.backlog.add(channelKey(dialogue.owner), dialogue)
  }

  private finishDialogue(owner: Pick<SpeakerRef, 'platform' | 'channelId'>): void {
    const key = channelKey(owner)
    this.answered.get(key)?.()
    this.answered.delete(key)
    const dialogue = this.tracker.finish(owner)
    if (dialogue) this.backlog.add(key, dialogue)
  }

  /** The bot answered the channel's dialogue: it ends once the answer has stood the grace time. */
  private finishAnswered(owner: SpeakerRef): void {
    const key = channelKey(owner)
    if (this.answered.has(key)) return
    const graceMs = this.deps.options.replyGraceMs ?? REPLY_GRACE_MS
    if (graceMs <= 0) return this.finishDialogue(owner)
    this.answered.set(
      key,
      this.deps.schedule(() => {
        this.answered.delete(key)
        if (this.tracker.answered(owner)) this.finishDialogue(owner)
      }, graceMs),
    )
  }

  /** Ends now every dialogue the bot has answered whose grace time still runs (`memory.flush`: nothing waits). */
  endAnswered(): void {
    for (const key of [...this.answered.keys()]) {
      const [platform, channelId] = JSON.parse(key) as [string, string]
      this.finishDialogue({ platform, channelId })
    }
  }

  /** Adapters report a sent message's id on Koishi's `send`: the bot's stored message learns it (`sentId`). */
  sent(session: Session): void {
    const { platform, channelId, messageId } = session
    if (![platform, channelId, messageId].every((field) => typeof field === 'string' && field)) return
    const text = typeof session.content === 'string' ? cleanText(session.content) : ''
    const id = this.sentIds.sent(cleanId(platform), cleanId(channelId!), text)
    if (!id) return
    const sentId = cleanId(messageId!)
    if (this.recorder.patch(id, { sentId })) return
    void this.recorder
      .flush()
      .then(() => this.deps.messages.setSentId({ id, platform: cleanId(platform), channelId: cleanId(channelId!) }, sentId))
      .catch((error: Error) => this.deps.logger.warn('could not record the id of a sent message: %s', error.message))
  }

  /**
   * A message was recalled or deleted: its turn leaves the dialogue it waits in (an answer of the bot
   * recalled, its dialogue is open again, as if it had never been sent), and a dialogue of the channel
   * being memorised now is done before the message is erased, so what it stores is found.
   */
  async withdraw(row: Pick<MessageRow, 'id' | 'platform' | 'channelId'>): Promise<void> {
    const key = channelKey(row)
    this.tracker.withdraw(row, row.id)
    if (this.answered.has(key) && !this.tracker.answered(row)) {
      this.answered.get(key)!()
      this.answered.delete(key)
    }
    if (this.held) this.held = this.held.filter((turn) => turn.id !== row.id)
    this.backlog.withdraw(key, row.id)
    await this.backlog.settled(key)
  }

  /**
   * A message was edited: a turn of it that waits to be memorised takes the new text. Returns whether one
   * did; if not, what was learnt from it is made again (`rememorise`) after the old text is erased.
   */
  async revise(row: Pick<MessageRow, 'id' | 'platform' | 'channelId'>, content: string): Promise<boolean> {
    const key = channelKey(row)
    const live = this.held?.find((turn) => turn.id === row.id)
    if (live) live.content = content
    const waiting = [this.tracker.revise(row, row.id, content), this.backlog.revise(key, row.id, content)].some(Boolean)
    await this.backlog.settled(key)
    return Boolean(live) || waiting
  }

  /**
   * Memorises again the dialogue an edited message was said in, as stored now: the message and the turns
   * right around it in its channel. Facts already known are not stored twice (dedupe), so the model reads
   * it again and only what the edit changed is new.
   */
  async rememorise(row: MessageRow): Promise<void> {
    if (!this.deps.options.memorize || row.role !== 'user' || row.isCommand) return
    const channel = { platform: row.platform, guildId: row.guildId, channelId: row.channelId }
    const [around] = await this.deps.messages.around(channel, [row.createdAt], REMEMORISED_TURNS, [row])
    const rows = [...(around?.before ?? []), row, ...(around?.after ?? [])].filter((turn) => !turn.isCommand && turn.content)
    const users = rows.filter((turn) => turn.role === 'user')
    this.backlog.add(channelKey(row), {
      owner: { ...channel, userId: row.userId },
      turns: rows.map((turn) => ({
        role: turn.role,
        name: turn.userName,
        content: turn.content,
        time: turn.createdAt,
        ...(turn.role === 'user' && { userId: turn.userId }),
      })),
      sourceIds: rows.map((turn) => turn.id),
      until: new Date(Math.max(...users.map((turn) => turn.createdAt.getTime()))),
    })
  }
}

/**
 * ChatLuna sends a "thinking…" message when its model is slow and recalls it once the answer is ready,
 * usually within seconds; an answer that stands this long is a real one.
 */
export const REPLY_GRACE_MS = 30_000

/** Turns on each side of an edited message memorised again with it. */
const REMEMORISED_TURNS = 3

function channelKey(channel: Pick<MessageRow, 'platform' | 'channelId'>): string {
  return JSON.stringify([channel.platform, channel.channelId])
}

function isMemoryCommand(name: string): boolean {
  return name === 'memory' || name.startsWith('memory.')
}
