import type { GroupRef, GroupSettingRow, ReviewRow } from '../../src/group/types'
import type { ReviewStore } from '../../src/group/store'

const clone = <T>(value: T): T => structuredClone(value)
const inGroup = (row: GroupRef, group: GroupRef) => row.platform === group.platform && row.guildId === group.guildId

/** An in-memory `ReviewStore` that copies rows in and out like a database. */
export class MemoryReviewStore implements ReviewStore {
  reviews = new Map<string, ReviewRow>()
  settings = new Map<string, GroupSettingRow>()

  async getReviews(ids: string[]) {
    return ids.flatMap((id) => (this.reviews.has(id) ? [clone(this.reviews.get(id)!)] : []))
  }

  async addReviews(rows: ReviewRow[]) {
    for (const row of rows) if (!this.reviews.has(row.id)) this.reviews.set(row.id, clone(row))
  }

  async pendingReviews(group: GroupRef, limit: number) {
    return [...this.reviews.values()]
      .filter((row) => inGroup(row, group) && row.status === 'pending')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.opIndex - b.opIndex)
      .slice(0, limit)
      .map(clone)
  }

  async decideReview(id: string, patch: Partial<ReviewRow>) {
    const row = this.reviews.get(id)
    if (!row || row.status !== 'pending') return false
    Object.assign(row, clone(patch))
    return true
  }

  async overdueReviews(before: Date, limit: number) {
    return [...this.reviews.values()]
      .filter((row) => row.status === 'pending' && row.createdAt < before)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map(clone)
  }

  async getSetting(group: GroupRef) {
    const row = this.settings.get(`${group.platform}:${group.guildId}`)
    return row && clone(row)
  }

  async putSetting(row: GroupSettingRow) {
    this.settings.set(row.id, clone(row))
  }

  /** Every proposal of a group, oldest first. */
  rowsOf(group: GroupRef) {
    return [...this.reviews.values()].filter((row) => inGroup(row, group)).map(clone)
  }
}
