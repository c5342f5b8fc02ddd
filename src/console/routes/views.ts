import type { MessageRow } from '../../messages'
import type { MessageView } from '../types'

/** A time as the page gets it: epoch ms, 0 for none. */
export const ms = (date: Date | null | undefined) => (date ? new Date(date).getTime() : 0)

export function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    guildId: row.guildId,
    channelId: row.channelId,
    userId: row.userId,
    userName: row.userName,
    role: row.role,
    content: row.content,
    createdAt: ms(row.createdAt),
  }
}
