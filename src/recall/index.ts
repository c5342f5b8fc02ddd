export { Recall, userWhere } from './recall'
export type { RecallDeps, RecallSettings, UserWhere } from './recall'
export { createContextBuilder } from './context-builder'
export type { ContextBuilderDeps, ContextBuilderSettings } from './context-builder'
