import type { RecalledMemory } from '../recall'
import type { ToolDefinition } from '../providers/types'

const day = (date: Date) => date.toISOString().slice(0, 10)

/**
 * `retrieve` as a tool: the speaker's long-term memories for a query. The scope is bound by the
 * caller from the message; the model chooses only the query, how many, and whether facts that are
 * no longer true count.
 */
export function searchMemoriesTool(recall: (query: string, limit: number, history: boolean) => Promise<RecalledMemory[]>): ToolDefinition {
  return {
    name: 'search_memories',
    description:
      'Search what is remembered about the current user (facts they stated: preferences, plans, their life, and their own words). ' +
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
      const limit = Math.min(20, Math.max(1, Math.floor(Number(args?.limit) || 5)))
      const found = await recall(query, limit, args?.history === true)
      if (!found.length) return { text: 'Nothing is remembered about that.' }
      const lines = found.map((memory) =>
        memory.kind === 'message'
          ? `- "${memory.content}" (their own words, ${day(memory.createdAt)})`
          : `- ${memory.content} (${day(memory.validFrom ?? memory.createdAt)}${memory.validTo ? ` – ${day(memory.validTo)}` : ''})`,
      )
      return { text: lines.join('\n') }
    },
  }
}
