import type { App } from 'koishi'
import { h, Universal } from 'koishi'

/** One message a user sends: in a group channel when `channel` is set, else in private. */
export interface Line {
  /** The platform's message id: unique across runs (the mock client numbers from 1 in every process). */
  id: string
  user: string
  channel?: string
  text: string
  /** When the platform says it was sent (ms); now when left out. */
  timestamp?: number
}

/**
 * Sends `line` through the mock bot as the platform would and resolves once Koishi has processed it
 * (its 'middleware' event, which is what the mock client's own `receive` waits for). The mock client
 * cannot be given a message id, and its ids restart at 1 in each process, so a restarted app would
 * overwrite the rows of the run before it (`platform:channel:messageId`).
 */
export function say(app: App, line: Line): Promise<void> {
  const bot = app.bots[0]
  if (!bot) throw new Error('no bot')
  const channel = line.channel
    ? { id: line.channel, type: Universal.Channel.Type.TEXT }
    : { id: `private:${line.user}`, type: Universal.Channel.Type.DIRECT }
  const session = bot.session({
    type: 'message',
    platform: bot.platform,
    selfId: bot.selfId,
    timestamp: line.timestamp ?? Date.now(),
    user: { id: line.user, name: line.user },
    channel,
    ...(line.channel && { guild: { id: line.channel } }),
    message: { id: line.id, content: line.text, elements: h.parse(line.text) },
  })
  return new Promise<void>((resolve) => {
    const dispose = app.on('middleware', (processed) => {
      if (processed.id !== session.id) return
      dispose()
      resolve()
    })
    // in a macrotask of its own, as a message from the network arrives: SQLite (sql.js) answers
    // synchronously, so lanes that dispatch from a resolved promise would keep timers and LanceDB's
    // callbacks from running until the flood ends
    setImmediate(() => bot.dispatch(session))
  })
}
