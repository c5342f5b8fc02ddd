import type { Session } from 'koishi'
import type { ToolDefinition } from '../../context'
import type { MemoryService } from '../../service'

/** A memory tool as the model sees it; `handler` answers in text. */
export type MemoryTool = ToolDefinition<Record<string, unknown>, { text: string }>

/**
 * `search_memories`: the user's long-term memories (facts) for a query, through `ctx.memory.retrieve`
 * in the session's scope (the user, in this group or in their private chat).
 */
export function memorySearchTool(memory: Pick<MemoryService, 'retrieve'>, session: Session): MemoryTool {
  return {
    name: 'search_memories',
    description:
      'Search what is remembered about the current user (facts they stated: preferences, plans, their life). ' +
      '检索关于当前用户的长期记忆（其本人说过的事实：偏好、计划、经历）。',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to recall / 要回忆的内容' },
        limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Most memories to return (default 5)' },
        history: { type: 'boolean', description: 'Also facts that are no longer true, with when they ended / 也包括已不再成立的旧事实' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async handler(args) {
      const query = typeof args?.query === 'string' ? args.query.trim() : ''
      if (!query) return { text: 'No query.' }
      const topK = Math.min(20, Math.max(1, Math.floor(Number(args?.limit) || 5)))
      const found = await memory.retrieve(session, query, { topK, history: args?.history === true })
      if (!found.length) return { text: 'Nothing is remembered about that.' }
      const day = (date: Date) => date.toISOString().slice(0, 10)
      return {
        text: found.map((one) => `- ${one.content}${one.validTo ? ` (until ${day(one.validTo)})` : ''}`).join('\n'),
      }
    },
  }
}

/**
 * Every memory tool, bound to one session: its scope (user, group, channel) comes from the session,
 * never from the model, so a user's memories never reach another user and a group's never another group.
 */
export function sessionTools(memory: Pick<MemoryService, 'retrieve' | 'searchTool' | 'knowledgeTools'>, session: Session): MemoryTool[] {
  return [
    memorySearchTool(memory, session),
    memory.searchTool(session) as unknown as MemoryTool,
    ...(memory.knowledgeTools(session) as unknown as MemoryTool[]),
  ]
}

/**
 * A session of no one, only to read the tools' names, descriptions and schemas when they are
 * registered (before any conversation); tools made for it are never run.
 */
const NOBODY = { platform: '', userId: '', guildId: '', channelId: '' } as unknown as Session

/** Name, description and JSON schema of each memory tool. */
export function toolDescriptions(memory: Pick<MemoryService, 'retrieve' | 'searchTool' | 'knowledgeTools'>) {
  return sessionTools(memory, NOBODY).map(({ name, description, parameters }) => ({ name, description, parameters }))
}

/**
 * Runs the tool `name` for the session that called it. Without a session with a user (the call did
 * not come from a chat), nothing is searched. Failures come back as text for the model.
 */
export async function runTool(
  memory: Pick<MemoryService, 'retrieve' | 'searchTool' | 'knowledgeTools'>,
  name: string,
  args: unknown,
  session: Session | undefined,
): Promise<string> {
  if (!session?.userId || !session.platform) return 'This tool only works inside a chat.'
  const tool = sessionTools(memory, session).find((one) => one.name === name)
  if (!tool) return `Unknown tool ${name}.`
  try {
    const result = await tool.handler((args && typeof args === 'object' ? args : {}) as Record<string, unknown>)
    return result.text
  } catch (error) {
    return `The search failed: ${(error as Error).message}`
  }
}
