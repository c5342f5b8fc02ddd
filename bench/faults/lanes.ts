import type { App } from 'koishi'
import type { Line } from './say'
import { say } from './say'
import { mulberry32 } from './support'

const SAYINGS = [
  (x: string) => `今天${x}那边下雨了吗`,
  (x: string) => `我住在${x}`,
  (x: string) => `哈哈哈${x}太好笑了`,
  (x: string) => `周末去${x}吃火锅吧`,
  (x: string) => `我最近在学${x}`,
  (x: string) => `${x}的新版本出了，大家更新了吗`,
  (x: string) => `I think ${x} is overrated`,
  (x: string) => `我养了一只叫${x}的猫`,
]
const WORDS = ['青岩', '星河', '墨松', '竹梅', '兰溪', '枫林', '柚子', '桃李', 'Lisbon', 'Rust', 'Koishi', 'LanceDB', '成都', '吉他']

export interface LaneOptions {
  messages: number
  /** Group channels (three speakers each), then private chats. */
  groups: number
  privates: number
  seed: number
  /** Message ids are `<prefix><n>`, group channels `<channel><c>`. */
  idPrefix: string
  channelPrefix: string
}

/** The messages of a flood, one lane per channel, in the order each channel says them (seeded). */
export function floodLanes(options: LaneOptions): Line[][] {
  const random = mulberry32(options.seed)
  const lanes: Line[][] = Array.from({ length: options.groups + options.privates }, () => [])
  for (let i = 0; i < options.messages; i++) {
    const c = i % lanes.length
    const x = `${WORDS[Math.floor(random() * WORDS.length)]}${i}`
    const text = SAYINGS[Math.floor(random() * SAYINGS.length)](x)
    const id = `${options.idPrefix}${i}`
    lanes[c].push(
      c < options.groups
        ? { id, user: `u${c}-${Math.floor(random() * 3)}`, channel: `${options.channelPrefix}${c}`, text }
        : { id, user: `p${c}`, text },
    )
  }
  return lanes
}

/**
 * Sends every lane at once, each its next message as soon as Koishi has processed the last; with `rate`
 * (messages per second over all lanes), message `i` of the flood (`floodLanes` deals them round the
 * lanes) waits until `i / rate` seconds after the start, or until its lane's last one is processed.
 */
export async function sendLanes(app: App, lanes: Line[][], rate?: number): Promise<void> {
  const start = performance.now()
  await Promise.all(
    lanes.map(async (lines, lane) => {
      for (const [n, line] of lines.entries()) {
        if (rate) {
          const due = start + ((n * lanes.length + lane) * 1000) / rate - performance.now()
          if (due > 0) await new Promise((resolve) => setTimeout(resolve, due))
        }
        await say(app, line)
      }
    }),
  )
}
