export { Recall } from './recall'
export type { RecallDeps, RecallSettings } from './recall'
export { createContextBuilder } from './context-builder'
export type { ContextBuilderDeps, ContextBuilderSettings } from './context-builder'
