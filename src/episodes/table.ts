import type { Context } from 'koishi'
import type { Episode } from './episodic'

declare module 'koishi' {
  interface Tables {
    memory_episode: Episode
  }
}

/** User → bot exchanges (seed 004 phase 2). */
export function defineEpisodeTable(ctx: Context) {
  ctx.model.extend(
    'memory_episode',
    {
      id: 'string(255)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      userId: 'string(127)',
      userName: 'string(255)',
      userMessageId: 'string(127)',
      userText: 'text',
      botText: 'text',
      createdAt: 'timestamp',
    },
    { primary: 'id', indexes: [['platform', 'userId', 'createdAt']] },
  )
}
