import type { Context } from 'koishi'
import { Service } from 'koishi'
import type { Outcome } from '../../src/console'

interface Listener {
  callback: (this: unknown, ...args: unknown[]) => Promise<Outcome<unknown>>
  authority?: number
}

/** The part of `@koishijs/console` the page's server side uses: entries and listeners, called as the console calls them. */
export class FakeConsole extends Service {
  listeners: Record<string, Listener> = Object.create(null)
  entries: { files: unknown; data: () => unknown }[] = []

  constructor(ctx: Context) {
    super(ctx, 'console', true)
  }

  addEntry(files: unknown, data: () => unknown) {
    const entry = { files, data }
    this.entries.push(entry)
    return { dispose: () => this.entries.splice(this.entries.indexOf(entry), 1) }
  }

  addListener(name: string, callback: Listener['callback'], options: { authority?: number } = {}) {
    this.listeners[name] = { callback, ...options }
  }

  /** What a listener answers a logged-in console user: `{ ok, value }` or `{ ok: false, error, detail }`. */
  outcome(name: string, ...args: unknown[]) {
    return this.listeners[name].callback.call({ auth: { id: 7, name: 'admin' } }, ...args)
  }

  /** The value a listener answers a logged-in console user, or its error as an exception. */
  async call<T>(name: string, ...args: unknown[]): Promise<T> {
    const outcome = await this.outcome(name, ...args)
    if (!outcome.ok) throw new Error(`${outcome.error}${outcome.detail ? `: ${outcome.detail}` : ''}`)
    return outcome.value as T
  }
}
