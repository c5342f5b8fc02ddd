import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Script = (path: string, body: any, res: ServerResponse) => void | Promise<void>

/** An OpenAI-compatible model server on loopback whose answers a test scripts. */
export class ScriptedServer {
  requests: { path: string; body: any }[] = []
  private server: Server
  private open = new Set<ServerResponse>()

  constructor(public script: Script) {
    this.server = createServer((req, res) => this.handle(req, res))
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`
  }

  async stop() {
    for (const res of this.open) res.destroy()
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}')
      const path = req.url!.replace(/^\/v1/, '')
      this.requests.push({ path, body })
      this.open.add(res)
      res.on('close', () => this.open.delete(res))
      await this.script(path, body, res)
    })
  }
}

export function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A chat completion whose message content is `content`. */
export function chat(res: ServerResponse, content: string) {
  json(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] })
}
