import { join } from 'node:path'
import { App } from 'koishi'
import mock from '@koishijs/plugin-mock'
import { HTTP } from '@koishijs/plugin-http'
import * as memory from '../../src'
import { plugServerDatabase } from './database'
import { ready, say } from './harness'

/**
 * One Koishi process of `two-instances.test.ts`: the mock adapter, the shared server database and the
 * memory plugin on its own LanceDB folder, driven by its parent over IPC. `MEMORY_INSTANCE` is the JSON
 * of `InstanceSetup`.
 */
export interface InstanceSetup {
  database: string
  dir: string
  config: memory.ConfigInput
}

export type InstanceRequest =
  | { id: number; op: 'say'; user: string; text: string; channel: string }
  | { id: number; op: 'evolve'; guildId: string }
  | { id: number; op: 'rows'; table: 'memory_group' | 'memory_group_change' | 'memory_group_lease'; guildId: string }
  | { id: number; op: 'retrieve'; user: string; query: string }
  | { id: number; op: 'forget-all'; user: string }
  | { id: number; op: 'of-user'; table: 'memory_fact' | 'memory_entity' | 'memory_message'; user: string }
  | { id: number; op: 'stop' }

async function handle(app: App, request: InstanceRequest) {
  switch (request.op) {
    case 'say':
      return say(app, request.user, request.text, request.channel)
    case 'evolve':
      return app.memory.evolve({ platform: 'mock', guildId: request.guildId })
    case 'rows':
      return app.database.get(request.table, { guildId: request.guildId })
    case 'retrieve':
      await app.memory.flushOutbox()
      return (await app.memory.retrieve(request.user, request.query, { platform: 'mock' })).map((memory) => memory.content)
    case 'forget-all':
      return app.memory.forgetAll({ platform: 'mock', userId: request.user })
    case 'of-user':
      return app.database.get(request.table, { platform: 'mock', userId: request.user })
    case 'stop':
      await app.memory.flush()
      await app.stop()
      return null
  }
}

async function main() {
  const setup: InstanceSetup = JSON.parse(process.env.MEMORY_INSTANCE!)
  const app = new App({ prefix: [''] })
  app.plugin(mock, { selfId: '514' })
  app.plugin(HTTP)
  plugServerDatabase(app, setup.database)
  app.plugin(memory, { ...setup.config, store: { path: join(setup.dir, 'lancedb'), retryIntervalSeconds: 1 } })
  await app.start()
  await ready(app)
  process.on('message', (request: InstanceRequest) => {
    handle(app, request).then(
      (value) => {
        process.send!({ id: request.id, value })
        if (request.op === 'stop') process.disconnect()
      },
      (error: Error) => process.send!({ id: request.id, error: error.stack ?? error.message }),
    )
  })
  process.send!({ ready: true })
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
