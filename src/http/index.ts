export { mountGroupApi } from './group-routes'
export type { GroupApi } from './group-routes'
export { mountKnowledgeApi } from './knowledge-routes'
