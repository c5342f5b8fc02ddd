export { defineGroupTables } from './table'
export { createGroupMemories, KoishiGroupStore, KoishiReviewStore } from './koishi-store'
export { GroupMemories } from './memories'
export { groupId } from './group-id'
export { GroupMemoryError, ReviewError } from './types'
export type {
  EvolutionMode,
  EvolutionResult,
  EvolutionStatus,
  GroupChangeRow,
  GroupMemoryRow,
  GroupRef,
  ReviewDecision,
  ReviewProblem,
  ReviewQueueResponse,
  ReviewView,
} from './types'
export type { GroupMemoryStore } from './store'
export { DEFAULT_EVOLUTION_PROMPTS } from './prompts'
export { groupModule } from './module'
export type { GroupPart, GroupSettings } from './module'
