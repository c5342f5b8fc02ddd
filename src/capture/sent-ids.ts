import type { MessageRow } from '../messages'

type Sending = Pick<MessageRow, 'id' | 'platform' | 'channelId' | 'content'>

interface Unsent {
  id: string
  content: string
  at: number
}

/**
 * The bot's messages are stored on `before-send`, before the platform has given them an id; an adapter
 * reports the id afterwards on Koishi's `send` event, in a session of its own. This pairs the two: each
 * channel's bot messages wait in the order they were sent, and a send is the oldest one whose text holds
 * what the adapter says it sent, else the oldest. A message whose send is
 * never reported (an adapter without the event, a send that failed) leaves after `maxAgeMs`.
 */
export class SentIds {
  private readonly waiting = new Map<string, Unsent[]>()

  constructor(private readonly options: { maxAgeMs: number; maxChannels: number; now(): number }) {}

  /** A bot message about to be sent (`id` `''`: one that is not stored, which still takes its turn). */
  sending(row: Sending): void {
    const key = JSON.stringify([row.platform, row.channelId])
    const list = this.fresh(key)
    list.push({ id: row.id, content: row.content, at: this.options.now() })
    this.waiting.delete(key)
    this.waiting.set(key, list)
    if (this.waiting.size > this.options.maxChannels) this.waiting.delete(this.waiting.keys().next().value!)
  }

  /** The row id of the bot message the adapter sent in the channel, with the text it reports (maybe none); `''` for one not stored. */
  sent(platform: string, channelId: string, text: string): string | undefined {
    const key = JSON.stringify([platform, channelId])
    const list = this.fresh(key)
    const said = text.trim()
    // an adapter may report the text otherwise rendered (an image's markup): then the oldest
    const index = Math.max(0, said ? list.findIndex((unsent) => unsent.content.includes(said)) : 0)
    const [match] = list.splice(index, 1)
    if (list.length) this.waiting.set(key, list)
    else this.waiting.delete(key)
    return match?.id
  }

  private fresh(key: string): Unsent[] {
    const since = this.options.now() - this.options.maxAgeMs
    return (this.waiting.get(key) ?? []).filter((unsent) => unsent.at >= since)
  }
}
