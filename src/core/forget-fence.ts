/** Whose memory a fence is about: a user on a platform. */
export interface FencedUser {
  platform: string
  userId: string
}

/**
 * When each user was last forgotten in this process. Work that waited meanwhile (a dialogue queued
 * before the forget) stores nothing of what they said before it: facts, entities, relations, profiles.
 */
export class ForgetFence {
  private readonly at = new Map<string, Date>()

  mark(user: FencedUser, at: Date): void {
    this.at.set(fenceKey(user), at)
  }

  /** When `user` was last forgotten; undefined when never in this process. */
  since(user: FencedUser): Date | undefined {
    return this.at.get(fenceKey(user))
  }
}

function fenceKey(user: FencedUser): string {
  return JSON.stringify([user.platform, user.userId])
}
