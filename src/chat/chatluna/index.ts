import { createRequire } from 'node:module'
import type { Context, Session } from 'koishi'
import type { Config as MemoryConfig } from '../../config'
import { addDocumentSet, memoryBlocks, presetPlacesMemory, toDocuments } from './prompt'
import { runTool, toolDescriptions } from './tools'

/**
 * The bridge to ChatLuna (koishi-plugin-chatluna 1.3), through ChatLuna's own extension points:
 * - prompts: the `chatluna/before-chat` event gives the request's prompt variables, which ChatLuna's
 *   prompt pipeline renders (`prompt.ts`);
 * - tools: `ctx.chatluna.platform.registerTool` (ChatLuna's tool registry); ChatLuna runs a tool with
 *   the session of the conversation in `configurable.session`, and each call is bound to that
 *   session's scope (`tools.ts`).
 * The bot's replies are ChatLuna's `session.send`, which the memory captures on `before-send` as it
 * captures every reply. Loaded by the memory's entry; it waits for both services, so without ChatLuna
 * it never runs.
 */
export const name = 'memory-chatluna'
export const inject = ['chatluna', 'memory']

export type Config = Pick<MemoryConfig['chatluna'], 'prompt' | 'tools'>

/** What a ChatLuna tool is (`ChatLunaTool` of ChatLuna's `llm-core/platform/types`). */
interface ChatLunaTool {
  createTool(params: unknown): unknown
  selector(history: unknown[]): boolean
  authorization?(session: Session): boolean
  description?: string
  meta?: Record<string, unknown>
}

/** The part of `ctx.chatluna` the bridge calls. */
interface ChatLunaPort {
  platform: { registerTool(name: string, tool: ChatLunaTool): () => void }
}

/** A preset as ChatLuna's chat interface holds it (a Vue ref). */
interface ChatInterfacePort {
  preset?: { value?: { rawText?: unknown } }
}

type BeforeChat = (
  conversationId: string,
  message: unknown,
  variables: Record<string, unknown>,
  chatInterface: ChatInterfacePort | undefined,
  session: Session | undefined,
) => Promise<void>

/** LangChain's `tool()`, from the copy ChatLuna uses (so ChatLuna's agent knows the class). */
function langchainTool() {
  const load = createRequire(require.resolve('koishi-plugin-chatluna'))
  return (
    load('@langchain/core/tools') as { tool: (func: (input: unknown, config?: unknown) => Promise<string>, fields: object) => unknown }
  ).tool
}

function registerTools(ctx: Context, chatluna: ChatLunaPort) {
  const tool = langchainTool()
  const memory = () => ctx.memory
  for (const { name, description, parameters } of toolDescriptions(ctx.memory)) {
    const dispose = chatluna.platform.registerTool(name, {
      description,
      // always offered: the model decides when to search
      selector: () => true,
      authorization: (session) => Boolean(session?.userId),
      meta: {
        source: 'extension',
        group: 'memory',
        tags: ['memory'],
        defaultAvailability: { enabled: true, main: true, chatluna: true, characterScope: 'all' },
      },
      createTool: () =>
        tool(
          (input, config) =>
            runTool(memory(), name, input, (config as { configurable?: { session?: Session } } | undefined)?.configurable?.session),
          // adapters may edit the schema they are given; the memory's own stays as it is
          { name, description, schema: structuredClone(parameters) },
        ),
    })
    ctx.effect(() => dispose)
  }
}

function listenBeforeChat(ctx: Context) {
  const log = ctx.logger('memory')
  const on = ctx.on.bind(ctx) as unknown as (event: string, listener: BeforeChat) => () => boolean
  on('chatluna/before-chat', async (_conversationId, _message, variables, chatInterface, session) => {
    if (!session?.userId || !variables) return
    let blocks: string[]
    try {
      blocks = await memoryBlocks(ctx.memory, session)
    } catch (error) {
      log.warn('ChatLuna bridge: no memory context for this message (%s)', (error as Error).message)
      return
    }
    if (!blocks.length) return
    variables.memory = blocks.join('\n\n')
    if (!presetPlacesMemory(chatInterface?.preset?.value?.rawText)) addDocumentSet(variables, toDocuments(blocks))
  })
}

export function apply(ctx: Context, config: Config) {
  const chatluna = ctx.get('chatluna') as ChatLunaPort
  if (config.tools) registerTools(ctx, chatluna)
  if (config.prompt) listenBeforeChat(ctx)
}
