export { mountGroupApi } from './group-routes'
export type { GroupApi } from './group-routes'
export { knowledgeApiRoutes, mountKnowledgeApi } from './knowledge-routes'
