import type { ErasedKind } from '../module'

/** The order a forget's report names what went in (`memory.forget`, the console). */
export const ERASED_KINDS: readonly ErasedKind[] = [
  'facts',
  'messages',
  'replies',
  'episodes',
  'topicSummaries',
  'channelSummaries',
  'contexts',
  'groupMemories',
  'entities',
  'relations',
  'profiles',
  'exports',
]
