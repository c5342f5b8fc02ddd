import type { Context, Session } from 'koishi'
import type { ToolDefinition } from '../../providers/types'

/** The part of the memory service the bridge's tools use. */
export type ToolSource = Pick<Context['memory'], 'replyTools'>

/**
 * A message of no one, only to read the tools' names, descriptions and schemas when they are
 * registered (before any conversation); tools made for it are never run.
 */
const NOBODY = { platform: '', userId: '', guildId: '', channelId: '', content: '', time: new Date(0) }

/** Name, description and JSON schema of each memory tool. */
export function toolDescriptions(memory: ToolSource) {
  return memory.replyTools(NOBODY).map(({ name, description, parameters }) => ({ name, description, parameters }))
}

/**
 * Runs the tool `name` for the session that called it. Without a session with a user (the call did
 * not come from a chat), nothing is searched. Failures come back as text for the model.
 */
export async function runTool(memory: ToolSource, name: string, args: unknown, session: Session | undefined): Promise<string> {
  if (!session?.userId || !session.platform) return 'This tool only works inside a chat.'
  const tool: ToolDefinition | undefined = memory.replyTools(session).find((one) => one.name === name)
  if (!tool) return `Unknown tool ${name}.`
  try {
    const result = await tool.handler((args && typeof args === 'object' ? args : {}) as Record<string, unknown>)
    return result.text
  } catch (error) {
    return `The search failed: ${(error as Error).message}`
  }
}
