import type { UserRef } from '../scope'

/**
 * When each user was last forgotten in this process. Work that waited meanwhile (a dialogue queued
 * before the forget) stores nothing of what they said before it: facts, entities, relations, profiles.
 */
export class ForgetFence {
  private readonly at = new Map<string, Date>()

  mark(user: UserRef, at: Date): void {
    this.at.set(fenceKey(user), at)
  }

  /** When `user` was last forgotten; undefined when never in this process. */
  since(user: UserRef): Date | undefined {
    return this.at.get(fenceKey(user))
  }
}

function fenceKey(user: UserRef): string {
  return JSON.stringify([user.platform, user.userId])
}
