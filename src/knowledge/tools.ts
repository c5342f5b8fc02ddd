import type { ToolDefinition } from '../providers/types'
import type { Knowledge } from './knowledge'
import type { EntityType, KnowledgeScope } from './types'
import { ENTITY_TYPES } from './types'
import type { PersonRef } from '../scope'

const clampInt = (value: unknown, fallback: number, max: number) => Math.min(max, Math.max(1, Math.floor(Number(value) || fallback)))

/**
 * `searchEntities`, `getUserProfile` and `queryGraph` as tools for the model. The scope and the user
 * are bound here from the session; the model chooses only the query, the entity and the bounds.
 */
export function knowledgeTools(knowledge: Knowledge, scope: KnowledgeScope, user: PersonRef) {
  const searchTool: ToolDefinition<{ query: string; types?: string[]; limit?: number }, { text: string }> = {
    name: 'search_entities',
    description:
      'Find people, places, organisations, products and events this chat has talked about. 查找本聊天提到过的人物、地点、组织、产品和事件。',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'A name or a description / 名称或描述' },
        types: { type: 'array', items: { type: 'string', enum: [...ENTITY_TYPES] } },
        limit: { type: 'integer', minimum: 1, maximum: 20 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async handler(args) {
      const types = (Array.isArray(args?.types) ? args.types : []).filter((type): type is EntityType =>
        ENTITY_TYPES.includes(type as EntityType),
      )
      const found = await knowledge.searchEntities(scope, String(args?.query ?? ''), { types, limit: clampInt(args?.limit, 5, 20) })
      const lines = found.map(({ entity }) =>
        [`${entity.name} (${entity.type})`, entity.aliases.length ? `aka ${entity.aliases.join(', ')}` : '', entity.description]
          .filter(Boolean)
          .join(' — '),
      )
      return { text: lines.length ? lines.join('\n') : 'No entity matches.' }
    },
  }
  const profileTool: ToolDefinition<Record<string, never>, { text: string }> = {
    name: 'get_user_profile',
    description: "The current user's profile: preferences, traits and a short summary. 当前用户的画像：偏好、性格和简介。",
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    async handler() {
      const profile = await knowledge.getUserProfile(user)
      if (!profile) return { text: 'No profile yet.' }
      const preferences = profile.preferences.filter((one) => one.validTo === null).map((one) => `${one.key}: ${one.value}`)
      const traits = profile.traits.map((trait) => trait.name)
      return { text: [profile.profileText, ...preferences, traits.length ? `traits: ${traits.join(', ')}` : ''].filter(Boolean).join('\n') }
    },
  }
  const graphTool: ToolDefinition<{ entity: string; depth?: number; relations?: string[] }, { text: string }> = {
    name: 'query_knowledge_graph',
    description: 'How an entity of this chat is related to others (who lives where, who is whose friend). 查询实体之间的关系。',
    parameters: {
      type: 'object',
      properties: {
        entity: { type: 'string', description: 'The name of a person, place, … / 实体名称' },
        depth: { type: 'integer', minimum: 1, maximum: 3 },
        relations: { type: 'array', items: { type: 'string' }, description: 'Only these predicates / 只看这些关系' },
      },
      required: ['entity'],
      additionalProperties: false,
    },
    async handler(args) {
      const graph = await knowledge.queryGraph(scope, String(args?.entity ?? ''), {
        maxDepth: clampInt(args?.depth, 2, 3),
        relationTypes: Array.isArray(args?.relations) ? args.relations.map(String) : undefined,
      })
      const names = new Map(graph.nodes.map((node) => [node.entity.id, node.entity.name]))
      const lines = graph.edges.map((edge) => `${names.get(edge.subjectId)} —${edge.predicate}→ ${names.get(edge.objectId)}`)
      return { text: lines.length ? lines.join('\n') : 'No relations known.' }
    },
  }
  return [searchTool, profileTool, graphTool]
}
