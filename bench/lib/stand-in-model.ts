import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from 'koishi'
import { internalsOf } from '../../src/compose'
import type { MemoryJudge } from '../../src/facts'

/**
 * A model on loopback for replays that measure what a budget lets through: an OpenAI-compatible
 * server that answers every request validly and emptily (no facts, a one-word summary), so that the
 * memory makes each call it would make of a real model, with its real prompt, and the budgets count
 * them. What is remembered stays the offline rules' (`judgeAsRules`): the replay measures calls, not a
 * model's answers.
 */
export class StandInModel {
  requests = 0
  private readonly server: Server = createServer((req, res) => this.answer(req, res))

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`
  }

  async stop() {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }

  private answer(req: IncomingMessage, res: ServerResponse) {
    req.resume()
    req.on('end', () => {
      this.requests++
      const content = JSON.stringify({ facts: [], summary: '…' })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }))
    })
  }
}

/**
 * The fact judge asks the model (charged to the dialogue's group while its budget lasts) and stores
 * what the offline rules read: the facts are the offline run's whatever the budget, and past it the
 * memory's own fallback, the rules, judges alone.
 */
export function judgeAsRules(app: App): void {
  const facts = internalsOf(app.memory).modules.env.part('facts')
  const { judge: modelled, rules } = facts
  const standIn: MemoryJudge = {
    id: `${modelled.id}+rules`,
    readsKnownFacts: modelled.readsKnownFacts,
    async extract(conversation, options) {
      await modelled.extract(conversation, options)
      return rules.extract(conversation, options)
    },
  }
  facts.judge = standIn
}
