// The console's sandbox page (@koishijs/plugin-sandbox) as a person uses it: add users, pick one,
// switch between its private chat and its one group chat, type a message and press Enter.
import type { Page } from 'playwright-core'

export interface ChatMessage {
  nick: string
  text: string
}

/** A message the console pushed to the page (`sandbox/message`): the user's own echo or the bot's. */
interface Pushed {
  user: string
  channel: string
  content: string
}

export type Panel = 'private' | 'group'

const PANEL_LABEL: Record<Panel, string> = { private: '私聊模式', group: '群聊模式' }
const INPUT = '发送消息到沙盒'
/** The name the sandbox bot sends as. */
const BOT = 'Koishi'

/** The text of a message as the page shows it, without white space (the page renders the escaped XML). */
function plain(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, '')
}

export class Sandbox {
  private readonly pushed: Pushed[] = []
  private user = ''
  private current: Panel = 'private'

  constructor(
    readonly page: Page,
    private readonly base: string,
    private readonly timeoutMs = 15_000,
  ) {
    // what the console sends the page tells when a message has arrived, whatever the page shows yet
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        try {
          const data = JSON.parse(payload.toString()) as { type?: string; body?: Pushed }
          if (data.type === 'sandbox/message' && data.body) this.pushed.push(data.body)
        } catch {
          // not JSON: not the sandbox's
        }
      }),
    )
  }

  async open(): Promise<void> {
    await this.page.goto(`${this.base}/sandbox`, { waitUntil: 'domcontentloaded', timeout: this.timeoutMs })
    await this.page.locator('.page-sandbox').waitFor({ timeout: this.timeoutMs })
  }

  private users() {
    return this.page.locator('.page-sandbox .user-container .nick')
  }

  private channel(): string {
    return this.current === 'group' ? '#' : '@' + this.user
  }

  /** Clicks 「添加用户」; returns the name the sandbox gave the new user (it becomes the current one). */
  async addUser(): Promise<string> {
    const before = await this.users().allInnerTexts()
    await this.page.locator('.page-sandbox .card-header', { hasText: '添加用户' }).click({ timeout: this.timeoutMs })
    await this.until(async () => (await this.users().count()) > before.length, 'a new user')
    const name = (await this.users().allInnerTexts()).find((user) => !before.includes(user))?.trim()
    if (!name) throw new Error('the sandbox added no user')
    await this.page.getByPlaceholder(INPUT).waitFor({ timeout: this.timeoutMs })
    this.user = name
    return name
  }

  async selectUser(name: string): Promise<void> {
    await this.users()
      .filter({ hasText: new RegExp(`^\\s*${name}\\s*$`) })
      .click({ timeout: this.timeoutMs })
    this.user = name
  }

  async panel(panel: Panel): Promise<void> {
    await this.page.locator('.page-sandbox .k-horizontal-tab-item', { hasText: PANEL_LABEL[panel] }).click({ timeout: this.timeoutMs })
    const active = this.page.locator('.page-sandbox .k-horizontal-tab-item.active', { hasText: PANEL_LABEL[panel] })
    await this.until(async () => (await active.count()) === 1, `the ${PANEL_LABEL[panel]} tab`)
    this.current = panel
  }

  /** The messages of the open chat that are rendered (the list is virtual: the latest ones). */
  async messages(): Promise<ChatMessage[]> {
    return this.page.locator('.page-sandbox .chat-message').evaluateAll((nodes) =>
      nodes.map((node) => ({
        nick: node.querySelector('.nickname')?.textContent?.trim() ?? '',
        // innerText keeps the answer's line breaks
        text: (node.querySelector('.message-content') as unknown as { innerText: string } | null)?.innerText.trim() ?? '',
      })),
    )
  }

  /** Types `text` as the current user and presses Enter; resolves when the chat shows it. */
  async say(text: string): Promise<void> {
    const mark = this.pushed.length
    const input = this.page.getByPlaceholder(INPUT)
    await input.fill(text, { timeout: this.timeoutMs })
    await input.press('Enter', { timeout: this.timeoutMs })
    const own = await this.arrival(mark, (message) => message.user === this.user, `"${text}" from ${this.user}`)
    // an answer may already follow it
    await this.until(
      async () => (await this.messages()).some((shown) => shown.nick === own.user && plain(shown.text) === plain(own.content)),
      `"${text}" on the page`,
    )
  }

  /** Sends a command as the current user and returns the bot's answer as the page shows it. */
  async command(text: string): Promise<string> {
    const mark = this.pushed.length
    await this.say(text)
    const answer = await this.arrival(mark, (message) => message.user === BOT, `the bot's answer to "${text}"`)
    return this.shown(answer, `the answer to "${text}"`)
  }

  /** The first message pushed after `mark` to the open chat that `match` accepts. */
  private async arrival(mark: number, match: (message: Pushed) => boolean, what: string): Promise<Pushed> {
    const channel = this.channel()
    let found: Pushed | undefined
    await this.until(async () => {
      found = this.pushed.slice(mark).find((message) => message.channel === channel && match(message))
      return found !== undefined
    }, what)
    return found!
  }

  /** Waits until the chat's last message is `message` as rendered (nothing follows an answer); returns its text. */
  private async shown(message: Pushed, what: string): Promise<string> {
    let text = ''
    await this.until(async () => {
      const last = (await this.messages()).at(-1)
      text = last?.text ?? ''
      return last !== undefined && last.nick === message.user && plain(last.text) === plain(message.content)
    }, `${what} on the page`)
    return text
  }

  /** Polls `done` until it holds; throws after the timeout. */
  private async until(done: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) {
        const shown = (await this.messages())
          .slice(-3)
          .map((message) => `${message.nick}: ${message.text}`)
          .join(' | ')
        throw new Error(`no ${what} within ${this.timeoutMs / 1000} s (the chat ends with: ${shown.replace(/\n/g, ' ⏎ ') || 'nothing'})`)
      }
      await this.page.waitForTimeout(100)
    }
  }
}
