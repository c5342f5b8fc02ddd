export { defineEpisodeTable } from './table'
export { KoishiEpisodes } from './koishi-store'
export { EpisodicMemory, episodeScope } from './episodic'
export type { Episode, RecalledEpisode } from './episodic'
