export { createMemorizer } from './memorizer'
export type { MemorizerDeps, MemorizerSettings } from './memorizer'
