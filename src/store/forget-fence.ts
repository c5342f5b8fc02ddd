import { createHash } from 'node:crypto'
import type { Context } from 'koishi'
import type { UserRef } from '../scope'
import { cleanId } from '../scope'

/** When a user was last forgotten (`forget --all`): one row per user, shared by every instance. */
export interface ForgetRow {
  id: string
  platform: string
  userId: string
  at: Date
}

declare module 'koishi' {
  interface Tables {
    memory_forget: ForgetRow
  }
}

export function defineForgetTable(ctx: Context) {
  ctx.model.extend('memory_forget', { id: 'string(63)', platform: 'string(63)', userId: 'string(127)', at: 'timestamp' }, { primary: 'id' })
}

/** Where the fence keeps its marks: the database, so that every instance and the next start see them. */
export interface ForgetMarks {
  write(row: ForgetRow): Promise<void>
  read(ids: string[]): Promise<ForgetRow[]>
}

export class KoishiForgetMarks implements ForgetMarks {
  constructor(private readonly ctx: Context) {}

  async write(row: ForgetRow): Promise<void> {
    await this.ctx.database.upsert('memory_forget', [row])
  }

  read(ids: string[]): Promise<ForgetRow[]> {
    return ids.length ? this.ctx.database.get('memory_forget', { id: { $in: ids } }) : Promise.resolve([])
  }
}

/**
 * When each user was last forgotten. Work that waited meanwhile (a dialogue queued before the forget,
 * here or on another instance) stores nothing of what they said before it: facts, entities, relations,
 * profiles. The marks live in the database; `since` answers from what was last read (`refresh`), so a
 * dialogue refreshes the fence of its speakers before it stores and checks it again after.
 */
export class ForgetFence {
  private readonly at = new Map<string, Date>()

  constructor(private readonly marks?: ForgetMarks) {}

  async mark(user: UserRef, at: Date): Promise<void> {
    const owner = { platform: cleanId(user.platform), userId: cleanId(user.userId) }
    this.note(fenceKey(owner), at)
    await this.marks?.write({ id: fenceKey(owner), ...owner, at })
  }

  /** Reads the marks of these users again (another instance may have forgotten them). */
  async refresh(users: UserRef[]): Promise<void> {
    if (!this.marks) return
    const keys = [...new Set(users.map((user) => fenceKey({ platform: cleanId(user.platform), userId: cleanId(user.userId) })))]
    for (const row of await this.marks.read(keys)) this.note(row.id, row.at)
  }

  /** When `user` was last forgotten, as last read; undefined when never. */
  since(user: UserRef): Date | undefined {
    return this.at.get(fenceKey({ platform: cleanId(user.platform), userId: cleanId(user.userId) }))
  }

  private note(key: string, at: Date): void {
    const known = this.at.get(key)
    if (!known || known < at) this.at.set(key, at)
  }
}

function fenceKey(user: UserRef): string {
  return createHash('sha1')
    .update(JSON.stringify([user.platform, user.userId]))
    .digest('hex')
}
