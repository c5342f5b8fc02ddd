import type { SpeakerRef } from '../scope'

/** Where to look for what waits to be memorised: a user's private chat, one guild, or every chat. */
export type WaitingPlace = 'everywhere' | 'private' | { guildId: string }

export interface WaitingReport {
  /** The user's lines in dialogues that have not ended. */
  messages: number
  /** When the quiet time ends the last of those dialogues; none when silence ends no dialogue there. */
  dueAt?: Date
  /** Ended dialogues of those chats that wait for (or are in) the memorising job. */
  memorising: number
}

/** The dialogues of `platform` in `where`. */
export function pickChats(platform: string, where: WaitingPlace): (owner: SpeakerRef) => boolean {
  if (where === 'everywhere') return (owner) => owner.platform === platform
  if (where === 'private') return (owner) => owner.platform === platform && !owner.guildId
  return (owner) => owner.platform === platform && owner.guildId === where.guildId
}
