import type { Context } from 'koishi'
import type { Logger } from '../core/observability'
import type { EntityDetails, EntityRow, EntityType, FoundEntity, Graph, GraphOptions, KnowledgeScope, ProfileRow } from '../knowledge'
import { ENTITY_TYPES } from '../knowledge'
import type { PersonRef } from '../scope'
import { ID_MAX, idError } from '../scope'
import type { ApiRequest, ApiResponse, ApiRoute, GroupApiOptions, RouterPort } from './group-routes'
import { authorised, registerRoutes } from './group-routes'

/**
 * Read-only routes over the structured knowledge, beside the group routes (same token, same prefix):
 *
 *   GET {prefix}/knowledge/entities?platform=&(guildId=|userId=)&q=&types=&limit=
 *   GET {prefix}/knowledge/entity?platform=&(guildId=|userId=)&name=
 *   GET {prefix}/knowledge/graph?platform=&(guildId=|userId=)&name=&depth=&maxNodes=
 *   GET {prefix}/knowledge/profile?platform=&userId=&guildId=
 *
 * The scope is given in parts, never joined: `platform` with `guildId` (a group) or with `userId` (the
 * user's private chat), exactly one of the two. Platforms (`sandbox:<id>`) and ids may hold colons, so a
 * joined `platform:…` string could be split more than one way; separate parameters cannot.
 *
 * 401 without the token; 400 (JSON, never 500) on a parameter given twice or unknown, an id or a name
 * over its length or holding a control character or a lone surrogate, a number out of its bounds, an
 * unknown entity type; 404 for an entity or a profile the scope does not have.
 */

/** What the routes need: the `memory` service or anything shaped like it. */
export interface KnowledgeApi {
  searchEntities(scope: KnowledgeScope, query: string, options?: { types?: EntityType[]; limit?: number }): Promise<FoundEntity[]>
  entity(scope: KnowledgeScope, name: string): Promise<EntityDetails | undefined>
  queryGraph(scope: KnowledgeScope, entity: string, options?: GraphOptions): Promise<Graph>
  getUserProfile(user: PersonRef): Promise<ProfileRow | undefined>
}

/** Longest query. An entity's name is bounded as an id is: its column is as wide. */
const QUERY_MAX = 1000

export const KNOWLEDGE_BOUNDS = {
  limit: { min: 1, max: 50, default: 10 },
  depth: { min: 1, max: 4, default: 2 },
  maxNodes: { min: 1, max: 200, default: 50 },
} as const

class BadRequest extends Error {}
class NotFound extends Error {}

function single(query: ApiRequest['query'], name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw new BadRequest(`${name} is given more than once`)
  return value
}

/** An id, a name or a query, refused unless the stores could hold it as given (`idError`). */
function text(value: string, name: string, max: number): string {
  const error = idError(value, name, max)
  if (error) throw new BadRequest(error)
  return value
}

function required(query: ApiRequest['query'], name: string, max: number): string {
  const value = single(query, name)
  if (value === undefined || value === '') throw new BadRequest(`${name} is required`)
  return text(value, name, max)
}

function bounded(query: ApiRequest['query'], name: keyof typeof KNOWLEDGE_BOUNDS): number {
  const raw = single(query, name)
  const { min, max, default: fallback } = KNOWLEDGE_BOUNDS[name]
  if (raw === undefined) return fallback
  const value = raw.trim() === '' ? NaN : Number(raw)
  if (!Number.isInteger(value) || value < min || value > max)
    throw new BadRequest(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw.slice(0, 40))}`)
  return value
}

function onlyKnown(query: ApiRequest['query'], known: string[]) {
  const unknown = Object.keys(query).filter((name) => !known.includes(name))
  if (unknown.length)
    throw new BadRequest(
      `unknown parameter ${JSON.stringify(unknown[0].slice(0, 40))}; a scope is platform= with guildId= (a group) or userId= (a private chat)`,
    )
}

/** `platform` with exactly one of `guildId` (a group) and `userId` (a private chat). */
function scopeParam(query: ApiRequest['query']): KnowledgeScope {
  const platform = required(query, 'platform', ID_MAX)
  const guildId = single(query, 'guildId')
  const userId = single(query, 'userId')
  if ((guildId === undefined) === (userId === undefined))
    throw new BadRequest('give exactly one of guildId (a group) and userId (a private chat) with platform')
  return guildId !== undefined
    ? { platform, guildId: required(query, 'guildId', ID_MAX), userId: '' }
    : { platform, guildId: '', userId: required(query, 'userId', ID_MAX) }
}

function typesParam(query: ApiRequest['query']): EntityType[] | undefined {
  const raw = query.types
  if (raw === undefined) return undefined
  const names = (Array.isArray(raw) ? raw : [raw]).flatMap((part) => part.split(','))
  return names.map((name) => {
    const type = name.trim().toUpperCase() as EntityType
    if (!ENTITY_TYPES.includes(type))
      throw new BadRequest(`unknown entity type ${JSON.stringify(name.slice(0, 40))}; known: ${ENTITY_TYPES.join(', ')}`)
    return type
  })
}

const SCOPE = ['platform', 'guildId', 'userId']

/**
 * The routes as plain functions over `ApiRequest` (register them with `registerRoutes`). `api` may be
 * a getter when the service comes after the routes.
 */
export function knowledgeApiRoutes(
  api: KnowledgeApi | (() => KnowledgeApi | undefined),
  options: GroupApiOptions,
  logger?: Logger,
): ApiRoute[] {
  const prefix = (options.prefix ?? '')
    .trim()
    .replace(/\/+$/, '')
    .replace(/^(?=[^/])/, '/')
  const knowledge = () => (typeof api === 'function' ? api() : api)

  const route = (path: string, run: (target: KnowledgeApi, request: ApiRequest) => Promise<object>): ApiRoute => ({
    method: 'get',
    path: prefix + path,
    async handle(request): Promise<ApiResponse> {
      if (!authorised(request.authorization, options.token))
        return {
          status: 401,
          body: { success: false, error: 'a valid bearer token is required' },
          headers: { 'WWW-Authenticate': 'Bearer' },
        }
      const target = knowledge()
      if (!target) return { status: 503, body: { success: false, error: 'the memory service is not ready' } }
      try {
        return { status: 200, body: { success: true, ...(await run(target, request)) } }
      } catch (error) {
        if (error instanceof BadRequest) return { status: 400, body: { success: false, error: error.message } }
        if (error instanceof NotFound) return { status: 404, body: { success: false, error: error.message } }
        logger?.warn('knowledge API GET %s failed: %s', prefix + path, (error as Error).message)
        return { status: 500, body: { success: false, error: 'internal error' } }
      }
    },
  })

  const entityName = (request: ApiRequest) => required(request.query, 'name', ID_MAX)
  const noEntity = (name: string) => new NotFound(`no entity "${name.slice(0, 63)}" here`)

  return [
    route('/knowledge/entities', async (target, { query }) => {
      onlyKnown(query, [...SCOPE, 'q', 'types', 'limit'])
      const scope = scopeParam(query)
      const q = required(query, 'q', QUERY_MAX)
      if (!q.trim()) throw new BadRequest('q is required')
      const found = await target.searchEntities(scope, q, { types: typesParam(query), limit: bounded(query, 'limit') })
      return { entities: found.map(({ entity, score, named }) => ({ ...entity, score, named })) }
    }),
    route('/knowledge/entity', async (target, { query }) => {
      onlyKnown(query, [...SCOPE, 'name'])
      const scope = scopeParam(query)
      const name = entityName({ query, params: {} })
      const details = await target.entity(scope, name)
      if (!details) throw noEntity(name)
      const { entity, relations, others } = details
      const nameOf = (id: string) => others.get(id)?.name ?? (id === entity.id ? entity.name : undefined)
      const ends = new Map<string, EntityRow>()
      for (const relation of relations)
        for (const id of [relation.subjectId, relation.objectId]) {
          const other = others.get(id)
          if (other && id !== entity.id) ends.set(id, other)
        }
      return {
        entity,
        relations: relations.map((relation) => ({ ...relation, subject: nameOf(relation.subjectId), object: nameOf(relation.objectId) })),
        others: [...ends.values()],
      }
    }),
    route('/knowledge/graph', async (target, { query }) => {
      onlyKnown(query, [...SCOPE, 'name', 'depth', 'maxNodes'])
      const scope = scopeParam(query)
      const name = entityName({ query, params: {} })
      const graph = await target.queryGraph(scope, name, { maxDepth: bounded(query, 'depth'), maxNodes: bounded(query, 'maxNodes') })
      if (!graph.root) throw noEntity(name)
      return graph
    }),
    route('/knowledge/profile', async (target, { query }) => {
      onlyKnown(query, SCOPE)
      const ref = {
        platform: required(query, 'platform', ID_MAX),
        userId: required(query, 'userId', ID_MAX),
        // absent or empty: the user's private chat
        guildId: text(single(query, 'guildId') ?? '', 'guildId', ID_MAX),
      }
      const profile = await target.getUserProfile(ref)
      if (!profile) throw new NotFound(`no profile of ${ref.userId.slice(0, 63)} ${ref.guildId ? 'in this group' : 'in the private chat'}`)
      return { profile }
    }),
  ]
}

/**
 * Mounts the knowledge routes on Koishi's `server` service whenever it is present. Returns false,
 * mounting nothing, when no token is configured.
 */
export function mountKnowledgeApi(ctx: Context, api: KnowledgeApi | (() => KnowledgeApi | undefined), options: GroupApiOptions): boolean {
  const logger = ctx.logger('memory')
  if (!options.token) return false
  const routes = knowledgeApiRoutes(api, options, logger)
  ctx.inject(['server'], (inner) => {
    registerRoutes((inner as unknown as { server: RouterPort }).server, routes)
    logger.info('knowledge HTTP API at %s/knowledge/*', routes[0].path.replace(/\/knowledge\/.*$/, ''))
  })
  return true
}
