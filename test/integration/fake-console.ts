import type { Context } from 'koishi'
import { Service } from 'koishi'
import type { Outcome } from '../../src/console'

interface Listener {
  callback: (this: unknown, ...args: unknown[]) => Promise<Outcome<unknown>>
  authority?: number
}

/** The part of `@koishijs/console` the page's server side uses: its listeners, called as the console calls them. */
export class FakeConsole extends Service {
  listeners: Record<string, Listener> = Object.create(null)

  constructor(ctx: Context) {
    super(ctx, 'console', true)
  }

  addEntry() {
    return { dispose: () => undefined }
  }

  addListener(name: string, callback: Listener['callback'], options: { authority?: number } = {}) {
    this.listeners[name] = { callback, ...options }
  }

  /** What a listener answers a logged-in console user: `{ ok, value }` or `{ ok: false, error, detail }`. */
  outcome(name: string, ...args: unknown[]) {
    return this.listeners[name].callback.call({ auth: { id: 7, name: 'admin' } }, ...args)
  }
}
