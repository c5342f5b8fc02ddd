/**
 * `npm start`: a local Koishi with the memory plugin on SQLite and LanceDB under ./data, offline
 * providers, and a terminal chat over the mock adapter. One message a line from stdin:
 *   :user NAME    speak as another user        :group ID    talk in a group chat
 *   :private      back to a private chat       @bot TEXT    mention the bot in a group
 *   :admin        make the current user an admin (authority 4), for memory.evolve and the like
 * Commands work as in any chat: help, memory.list, memory.recall <query>, memory.status, memory.forget <id>.
 * The bot answers each user in the language they last wrote in.
 */
import { mkdirSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { App, h } from 'koishi'
import mock from '@koishijs/plugin-mock'
import * as help from '@koishijs/plugin-help'
import { HTTP } from '@koishijs/plugin-http'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import * as memory from '../src'
import * as language from './language'

async function main() {
  mkdirSync('data', { recursive: true })
  const app = new App({ prefix: [''] })
  const mockFork = app.plugin(mock, { selfId: '514' })
  app.plugin(HTTP)
  app.plugin(help)
  app.plugin(SQLiteDriver, { path: 'data/koishi.db' })
  // the built-in chat answers private messages and @-mentions; offline it says what it remembers
  app.plugin(memory, { store: { path: 'data/memory/lancedb' }, chat: { enabled: true, cooldownSeconds: 0 } })
  app.plugin(language)
  await app.start()
  await new Promise<void>((resolve) => app.inject(['memory'], () => resolve()))

  let user = 'alice'
  let group: string | undefined
  const interactive = process.stdin.isTTY
  const prompt = () => interactive && process.stdout.write(`${user}${group ? '@' + group : ''}> `)
  console.log('koishi-plugin-memory demo: type a message per line (:user NAME, :group ID, :private, :admin, @bot TEXT, help).')
  prompt()

  const lines = createInterface({ input: process.stdin })
  for await (const raw of lines) {
    const line = raw.trim()
    if (!interactive && line) console.log(`${user}${group ? '@' + group : ''}> ${line}`)
    if (line.startsWith(':user ')) user = line.slice(6).trim() || user
    else if (line.startsWith(':group ')) group = line.slice(7).trim() || undefined
    else if (line === ':private') group = undefined
    else if (line === ':admin') {
      if (await app.database.getUser('mock', user)) await app.database.setUser('mock', user, { authority: 4 })
      else await app.mock.initUser(user, 4)
      console.log(`bot> ${user} is an admin now (authority 4).`)
    } else if (line) {
      const content = line.startsWith('@bot ') ? `<at id="${app.mock.bots[0].selfId}"/> ${line.slice(5)}` : line
      const replies = await app.mock.client(user, group).receive(content)
      for (const text of replies) console.log(`bot> ${plain(text)}`)
      // give the background memory job time to finish, so the next line can use what it stored
      await app.memory.flush()
    }
    prompt()
  }
  await app.memory.flush()
  // the mock bot must go before the app, whose bot list it looks itself up in when disposed
  mockFork.dispose()
  await app.stop()
}

/**
 * A reply as a terminal shows it: its text, an @ as @name, and an element a platform would not know
 * (`help` writes its placeholder "<command>" as one) as its own name in angle brackets, then its content.
 */
function plain(message: string): string {
  const render = (elements: h[]): string =>
    elements
      .map((element) => {
        if (element.type === 'text') return String(element.attrs.content ?? '')
        if (element.type === 'at') return `@${element.attrs.name ?? element.attrs.id}`
        return `<${element.type}>${render(element.children)}`
      })
      .join('')
  return render(h.parse(message))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
