import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context } from 'koishi'
import type { Logger } from '../core/observability'
import { GroupMemoryError } from '../group'
import type { GroupMemories, EvolutionStatus, GroupRef } from '../group'
import { idError } from '../scope'
import type { BodyStream } from './body'
import { HttpError, readBody } from './body'

/**
 * The HTTP API of design §6.6 on Koishi's `server` service (a koa router):
 *
 *   POST   {prefix}/memory/evolve/:group?days=
 *   GET    {prefix}/memory/list/:group?status=&limit=&offset=
 *   GET    {prefix}/memory/search/:group?q=&limit=&threshold=
 *   GET    {prefix}/memory/history/:memoryId
 *   GET    {prefix}/memory/changes/:group?days=
 *   DELETE {prefix}/memory/:memoryId            (optional reason: ?reason= or JSON body {reason})
 *   PUT    {prefix}/memory/:memoryId/restore
 *   PUT    {prefix}/memory/:memoryId/strength  (JSON body {strength} or ?strength=)
 *
 * `:group` is `platform:guildId`. Routes named by memory id act on the memory's own group; add
 * `?group=` to insist on one. Every route needs `Authorization: Bearer <token>`; without a configured
 * token nothing is mounted. Wrong or missing token → 401; bad parameters (an id with a control
 * character or a lone surrogate, or over 255 characters, too) → 400; a body over 64 KB → 413; unknown
 * memory → 404; a memory in the wrong state (restoring an active one) → 409. Bodies are design §6.6's
 * response shapes; errors are `{ success: false, error }`. Request bodies (JSON, or a form) are read
 * only after the token is checked, on every method.
 */

/** What the routes need: `GroupMemories` or anything shaped like it. */
export type GroupApi = Pick<
  GroupMemories,
  'evolve' | 'list' | 'search' | 'history' | 'changes' | 'remove' | 'restore' | 'setStrength' | 'locate'
>

export interface GroupApiOptions {
  /** Put before every route, e.g. `/api`. Default none. */
  prefix?: string
  /** The bearer token. Empty: the API is not mounted. */
  token: string
}

/** One request, independent of koa. */
export interface ApiRequest {
  params: Record<string, string>
  query: Record<string, string | string[] | undefined>
  /** Reads the body; called once the token is checked, before the route does anything. */
  body?: () => Promise<unknown>
  /** The `Authorization` header. */
  authorization?: string
}

export interface ApiResponse {
  status: number
  body: unknown
  headers?: Record<string, string>
}

export interface ApiRoute {
  method: 'get' | 'post' | 'put' | 'delete'
  path: string
  handle(request: ApiRequest): Promise<ApiResponse>
}

/** The part of a koa router (`ctx.server`) the API uses. */
export interface RouterPort {
  get(path: string, handler: KoaHandler): unknown
  post(path: string, handler: KoaHandler): unknown
  put(path: string, handler: KoaHandler): unknown
  delete(path: string, handler: KoaHandler): unknown
}

/** The part of a koa context a handler reads and writes. */
export interface KoaLike {
  params: Record<string, string>
  query: Record<string, string | string[] | undefined>
  /** The Node request, whose body the routes read themselves. */
  req: BodyStream
  get(field: string): string
  set(field: string, value: string): void
  status: number
  body: unknown
}

type KoaHandler = (koa: KoaLike) => Promise<void>

const EVOLVE_STATUS: Record<EvolutionStatus, number> = {
  evolved: 200,
  // a moderated group's plan waits in its review queue
  queued: 202,
  'no-new-messages': 200,
  busy: 409,
  'no-llm': 503,
  // the group's model calls of the day are spent: try again tomorrow
  'budget-spent': 429,
  failed: 502,
}

const ERROR_STATUS: Record<GroupMemoryError['code'], number> = {
  'bad-request': 400,
  'not-found': 404,
  'unknown-group': 404,
  conflict: 409,
}

class BadRequest extends GroupMemoryError {
  constructor(message: string) {
    super(message, 'bad-request')
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Whether an `Authorization` header carries the token (compared in constant time). */
export function authorised(header: string | undefined, token: string): boolean {
  if (!token) return false
  const match = /^Bearer\s+(.+)$/i.exec((header ?? '').trim())
  if (!match) return false
  return timingSafeEqual(digest(match[1].trim()), digest(token))
}

function single(query: ApiRequest['query'], name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw new BadRequest(`${name} is given more than once`)
  return value === undefined ? undefined : value
}

function numberParam(query: ApiRequest['query'], name: string, integer: boolean): number | undefined {
  const raw = single(query, name)
  if (raw === undefined) return undefined
  const value = raw.trim() === '' ? NaN : Number(raw)
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)))
    throw new BadRequest(`${name} must be ${integer ? 'a whole number' : 'a number'}, got "${raw.slice(0, 40)}"`)
  return value
}

function bodyField(body: unknown, name: string): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined
}

/** An id from the URL, refused unless the stores could hold it as given (`idError`). */
function idParam(value: string | undefined, name: string): string {
  const id = value ?? ''
  const error = idError(id, name)
  if (error) throw new BadRequest(error)
  return id
}

/** `:group` as written (`platform:guildId`); group memory resolves it to a group that exists. */
const groupParam = (request: ApiRequest) => idParam(request.params.group, 'group')
const memoryIdParam = (request: ApiRequest) => idParam(request.params.memoryId, 'memoryId')

/**
 * The routes as plain functions over `ApiRequest`, for any router (and for tests without a server).
 * `api` may be a getter when group memory is built after the routes.
 */
export function groupApiRoutes(api: GroupApi | (() => GroupApi | undefined), options: GroupApiOptions, logger?: Logger): ApiRoute[] {
  const prefix = (options.prefix ?? '')
    .trim()
    .replace(/\/+$/, '')
    .replace(/^(?=[^/])/, '/')
  const memories = () => (typeof api === 'function' ? api() : api)

  /** The memory's group: the one named by `?group=`, else the group the memory belongs to. */
  const memoryGroup = async (target: GroupApi, request: ApiRequest): Promise<GroupRef | string> => {
    const named = single(request.query, 'group')
    if (named !== undefined) return idParam(named, 'group')
    const memoryId = memoryIdParam(request)
    const found = await target.locate(memoryId)
    if (!found) throw new GroupMemoryError(`no memory ${memoryId.slice(0, 63)}`, 'not-found')
    return found
  }

  const route = (
    method: ApiRoute['method'],
    path: string,
    run: (target: GroupApi, request: ApiRequest, body: unknown) => Promise<ApiResponse | object>,
  ): ApiRoute => ({
    method,
    path: prefix + path,
    async handle(request) {
      if (!authorised(request.authorization, options.token)) {
        return {
          status: 401,
          body: { success: false, error: 'a valid bearer token is required' },
          headers: { 'WWW-Authenticate': 'Bearer' },
        }
      }
      const target = memories()
      if (!target) return { status: 503, body: { success: false, error: 'group memory is not ready' } }
      try {
        const result = await run(target, request, await request.body?.())
        return 'status' in result && 'body' in result ? (result as ApiResponse) : { status: 200, body: result }
      } catch (error) {
        if (error instanceof GroupMemoryError) return { status: ERROR_STATUS[error.code], body: { success: false, error: error.message } }
        if (error instanceof HttpError)
          return {
            status: error.status,
            body: { success: false, error: error.message },
            // the rest of an oversized body is left unread: the connection cannot carry another request
            headers: error.status === 413 ? { Connection: 'close' } : undefined,
          }
        logger?.warn('group memory API %s %s failed: %s', method.toUpperCase(), prefix + path, (error as Error).message)
        return { status: 500, body: { success: false, error: 'internal error' } }
      }
    },
  })

  return [
    route('post', '/memory/evolve/:group', async (target, request) => {
      const result = await target.evolve(groupParam(request), { days: numberParam(request.query, 'days', false) })
      return { status: EVOLVE_STATUS[result.status], body: result }
    }),
    route('get', '/memory/list/:group', (target, request) => {
      const status = single(request.query, 'status')
      if (status !== undefined && !['active', 'deprecated', 'all'].includes(status))
        throw new BadRequest('status must be active, deprecated or all')
      return target.list(groupParam(request), {
        status: status as 'active' | 'deprecated' | 'all' | undefined,
        limit: numberParam(request.query, 'limit', true),
        offset: numberParam(request.query, 'offset', true),
      })
    }),
    route('get', '/memory/search/:group', (target, request) => {
      const q = single(request.query, 'q')
      if (!q?.trim()) throw new BadRequest('q (the query) is required')
      return target.search(groupParam(request), q, {
        limit: numberParam(request.query, 'limit', true),
        threshold: numberParam(request.query, 'threshold', false),
      })
    }),
    route('get', '/memory/history/:memoryId', async (target, request) => {
      return target.history(await memoryGroup(target, request), memoryIdParam(request))
    }),
    route('get', '/memory/changes/:group', (target, request) => {
      return target.changes(groupParam(request), { days: numberParam(request.query, 'days', false) })
    }),
    route('delete', '/memory/:memoryId', async (target, request, body) => {
      const reason = single(request.query, 'reason') ?? bodyField(body, 'reason')
      if (reason !== undefined && typeof reason !== 'string') throw new BadRequest('reason must be a string')
      return target.remove(await memoryGroup(target, request), memoryIdParam(request), reason)
    }),
    route('put', '/memory/:memoryId/restore', async (target, request) => {
      return target.restore(await memoryGroup(target, request), memoryIdParam(request))
    }),
    route('put', '/memory/:memoryId/strength', async (target, request, body) => {
      let strength = bodyField(body, 'strength') ?? numberParam(request.query, 'strength', false)
      if (typeof strength === 'string' && strength.trim() !== '') strength = Number(strength)
      if (typeof strength !== 'number' || !Number.isFinite(strength))
        throw new BadRequest('strength (a number from 0 to 1) is required, as JSON {"strength": 0.8} or ?strength=0.8')
      return target.setStrength(await memoryGroup(target, request), memoryIdParam(request), strength)
    }),
  ]
}

/**
 * `@koishijs/plugin-server` puts koa-body before a route (10 MB, POST/PUT/PATCH only, before any
 * token is checked) unless the route's first handler carries this mark; these routes read their body.
 */
const NO_PARSE_BODY = Symbol.for('noParseBody')

/** Registers routes on a koa router. */
export function registerRoutes(router: RouterPort, routes: ApiRoute[]) {
  for (const route of routes) {
    const handler: KoaHandler = async (koa) => {
      const response = await route.handle({
        params: koa.params ?? {},
        query: koa.query ?? {},
        body: () => readBody(koa.req, { contentType: koa.get('content-type'), contentLength: koa.get('content-length') }),
        authorization: koa.get('authorization') || undefined,
      })
      for (const [name, value] of Object.entries(response.headers ?? {})) koa.set(name, value)
      koa.status = response.status
      koa.body = response.body
    }
    router[route.method](route.path, Object.assign(handler, { [NO_PARSE_BODY]: true }))
  }
}

/**
 * Mounts the API on Koishi's `server` service whenever it is present (routes come and go with it
 * and with `ctx`). Returns false, mounting nothing, when no token is configured.
 */
export function mountGroupApi(ctx: Context, api: GroupApi | (() => GroupApi | undefined), options: GroupApiOptions): boolean {
  const logger = ctx.logger('memory')
  if (!options.token) {
    logger.debug('group memory HTTP API disabled: no token configured')
    return false
  }
  const routes = groupApiRoutes(api, options, logger)
  ctx.inject(['server'], (inner) => {
    // typed structurally: `@koishijs/plugin-server` comes with koishi but is not a dependency of this package
    registerRoutes((inner as unknown as { server: RouterPort }).server, routes)
    logger.info('group memory HTTP API at %s/memory/*', routes[0].path.replace(/\/memory\/.*$/, ''))
  })
  return true
}
