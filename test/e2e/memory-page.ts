// The console's Memory page (client/) as an operator uses it: tabs, a search, buttons and the
// dialogs Element Plus opens; downloads and uploads through the browser.
import { readFileSync } from 'node:fs'
import type { Locator, Page } from 'playwright-core'

export type MemoryTab = 'people' | 'groups' | 'moderation' | 'health' | 'transfer'
export type GroupView = 'memories' | 'changes' | 'topics'

export interface Group {
  platform: string
  guildId: string
}

/** The key `koishi.console.config` of the console's local storage holds its settings, the language among them. */
const CONSOLE_CONFIG = 'koishi.console.config'

export class MemoryPage {
  constructor(
    readonly page: Page,
    private readonly base: string,
    private readonly timeoutMs = 15_000,
  ) {}

  /** Opens the page (on a tab) by its address, as a bookmark would. */
  async open(tab?: MemoryTab): Promise<void> {
    await this.page.goto(`${this.base}/memory${tab ? `?tab=${tab}` : ''}`, { waitUntil: 'domcontentloaded', timeout: this.timeoutMs })
    await this.page.locator('.page-memory .memory-tabs').waitFor({ timeout: this.timeoutMs })
  }

  /** The tabs shown, by their ids. */
  async tabs(): Promise<string[]> {
    return this.page
      .locator('.page-memory .memory-tabs .memory-tab')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tab') ?? ''))
  }

  async tab(tab: MemoryTab): Promise<void> {
    await this.page.locator(`.memory-tabs .memory-tab[data-tab="${tab}"]`).click({ timeout: this.timeoutMs })
    await this.page.locator(`.memory-tabs .memory-tab.active[data-tab="${tab}"]`).waitFor({ timeout: this.timeoutMs })
  }

  /** The text of the page's body (what a reader sees). */
  async text(): Promise<string> {
    return this.page.locator('.page-memory .memory-body').innerText({ timeout: this.timeoutMs })
  }

  /** Switches the console's language, as its settings page does, and reloads. */
  async language(locale: 'zh-CN' | 'en-US'): Promise<void> {
    await this.page.evaluate(
      ([key, value]) => {
        // the page's own storage (no DOM types here: the test runs in Node)
        const storage = (
          globalThis as unknown as { localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void } }
        ).localStorage
        const config = JSON.parse(storage.getItem(key) || '{}') as Record<string, unknown>
        storage.setItem(key, JSON.stringify({ ...config, locale: value }))
      },
      [CONSOLE_CONFIG, locale],
    )
    await this.page.reload({ waitUntil: 'domcontentloaded' })
    await this.page.locator('.page-memory .memory-tabs').waitFor({ timeout: this.timeoutMs })
  }

  /** Waits for the toast Element Plus shows after an operation; returns its text. */
  async toast(kind: 'success' | 'error' | 'warning' = 'success'): Promise<string> {
    const toast = this.page.locator(`.el-message--${kind}`).last()
    await toast.waitFor({ timeout: this.timeoutMs })
    return toast.innerText()
  }

  /** Presses the confirming button of the open message box. */
  async confirm(): Promise<void> {
    const box = this.page.locator('.el-message-box')
    await box.waitFor({ timeout: this.timeoutMs })
    await box.locator('.el-message-box__btns .el-button--primary').click({ timeout: this.timeoutMs })
    await box.waitFor({ state: 'hidden', timeout: this.timeoutMs })
  }

  // ── people ────────────────────────────────────────────────────────────────

  /** Searches people by name or id; resolves when the page lists what it found (or says it found nobody). */
  async searchUser(query: string): Promise<void> {
    const input = this.page.locator('.people-search input')
    await input.fill(query, { timeout: this.timeoutMs })
    await input.press('Enter')
    await this.page.locator('.people-hit, .people-none').first().waitFor({ timeout: this.timeoutMs })
  }

  /** Opens the person found under `name`; resolves when their facts are shown. */
  async openUser(name: string): Promise<void> {
    await this.page
      .locator('.people-hit')
      .filter({ has: this.page.locator('strong', { hasText: new RegExp(`^\\s*${name}\\s*$`) }) })
      .first()
      .click({ timeout: this.timeoutMs })
    await this.page.locator('.people-details .people-head h2', { hasText: name }).waitFor({ timeout: this.timeoutMs })
  }

  /** The cards of the open person's facts. */
  facts(): Locator {
    return this.page.locator('.people-details .people-fact')
  }

  /** The card of the current fact whose words match (a current fact carries the green tag). */
  currentFact(pattern: RegExp): Locator {
    return this.facts()
      .filter({ has: this.page.locator('.fact-content', { hasText: pattern }) })
      .filter({ has: this.page.locator('.el-tag--success') })
  }

  /** The card of a closed fact whose words match. */
  closedFact(pattern: RegExp): Locator {
    return this.page
      .locator('.people-details .people-fact.closed')
      .filter({ has: this.page.locator('.fact-content', { hasText: pattern }) })
  }

  /** Edits a fact's words and saves; resolves when the page shows the new version. */
  async editFact(card: Locator, words: string): Promise<void> {
    // while it is edited the card shows a text box instead of its words: hold on to it by its id
    const id = await card.getAttribute('data-fact', { timeout: this.timeoutMs })
    card = this.page.locator(`.people-fact[data-fact="${cssString(id ?? '')}"]`)
    await card.locator('.fact-edit').click({ timeout: this.timeoutMs })
    const draft = card.locator('.fact-draft textarea')
    await draft.fill(words, { timeout: this.timeoutMs })
    await card.locator('.fact-save').click({ timeout: this.timeoutMs })
    await this.toast()
    await this.facts().filter({ hasText: words }).first().waitFor({ timeout: this.timeoutMs })
  }

  /** Forgets a fact, confirming the dialog; resolves with what the page said went, once it has reloaded the person. */
  async forgetFact(card: Locator): Promise<string> {
    await card.locator('.fact-forget').click({ timeout: this.timeoutMs })
    await this.confirm()
    return this.toast()
  }

  // ── groups ────────────────────────────────────────────────────────────────

  /** The groups listed, as they are stored (a platform may hold colons). */
  async groups(): Promise<Group[]> {
    await this.page.locator('.groups-item, .groups-none').first().waitFor({ timeout: this.timeoutMs })
    return this.page
      .locator('.groups-item')
      .evaluateAll((nodes) =>
        nodes.map((node) => ({ platform: node.getAttribute('data-platform') ?? '', guildId: node.getAttribute('data-guild') ?? '' })),
      )
  }

  /** Chooses a group in the open tab (Groups or Moderation). */
  async chooseGroup(group: Group, item = '.groups-item'): Promise<void> {
    await this.page
      .locator(`${item}[data-platform="${cssString(group.platform)}"][data-guild="${cssString(group.guildId)}"]`)
      .click({ timeout: this.timeoutMs })
    await this.page.waitForLoadState('networkidle').catch(() => undefined)
  }

  async groupView(view: GroupView): Promise<void> {
    await this.page.locator(`.groups-views .memory-tab[data-view="${view}"]`).click({ timeout: this.timeoutMs })
    await this.page.locator(`.groups-views .memory-tab.active[data-view="${view}"]`).waitFor({ timeout: this.timeoutMs })
  }

  /** The card of the group memory whose statement matches. */
  groupMemory(pattern: RegExp): Locator {
    return this.page.locator('.groups-memory').filter({ has: this.page.locator('.memory-statement', { hasText: pattern }) })
  }

  // ── transfer ──────────────────────────────────────────────────────────────

  /** Clicks `button` and returns the file the browser downloads. */
  async download(button: Locator): Promise<{ name: string; text: string }> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download', { timeout: this.timeoutMs }),
      button.click({ timeout: this.timeoutMs }),
    ])
    const path = await download.path()
    return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') }
  }

  /** Chooses a file to import and uploads it; resolves with the result the page shows. */
  async upload(path: string): Promise<string> {
    await this.page.locator('.transfer-file').setInputFiles(path, { timeout: this.timeoutMs })
    await this.page.locator('.transfer-upload').click({ timeout: this.timeoutMs })
    const result = this.page.locator('.transfer-result')
    await result.waitFor({ timeout: this.timeoutMs })
    return result.innerText()
  }
}

/** A value for a CSS attribute selector in double quotes. */
function cssString(value: string): string {
  return value.replace(/["\\]/g, '\\$&')
}
