import type { RetrievedMemory } from '../facts'
import type { ReplyTool } from './tool-loop'

/**
 * `retrieve` as a tool: the speaker's long-term memories for a query. The scope is bound by the
 * caller from the message; the model chooses only the query and how many.
 */
export function searchMemoriesTool(recall: (query: string, limit: number) => Promise<RetrievedMemory[]>): ReplyTool {
  return {
    name: 'search_memories',
    description:
      'Search what is remembered about the current user (facts they stated, with dates). 搜索关于当前用户的长期记忆（他们说过的事实）。',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for / 要找的内容' },
        limit: { type: 'integer', minimum: 1, maximum: 20 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async handler(args) {
      const query = typeof args?.query === 'string' ? args.query.trim() : ''
      if (!query) return { text: 'No memory matches.' }
      const limit = Math.min(20, Math.max(1, Math.floor(Number(args?.limit) || 5)))
      const found = await recall(query, limit)
      const lines = found.map((memory) => `- ${memory.content} (${memory.createdAt.toISOString().slice(0, 10)})`)
      return { text: lines.length ? lines.join('\n') : 'No memory matches.' }
    },
  }
}
