import type { Context } from 'koishi'

/** One exchange: a user's message and the bot's reply to it (replies to one message join one episode). */
export interface Episode {
  /** The row id of the user's message. */
  id: string
  platform: string
  /** '' for a private chat. */
  guildId: string
  channelId: string
  userId: string
  userName: string
  userMessageId: string
  userText: string
  botText: string
  createdAt: Date
}

declare module 'koishi' {
  interface Tables {
    memory_episode: Episode
  }
}

/** User → bot exchanges (design §2.5). */
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
