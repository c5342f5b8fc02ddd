import type { FactStore } from './store'
import type { FactRow } from './table'

/** Most versions `factVersions` follows. */
const VERSIONS_MAX = 100

/**
 * A fact and the versions edits left behind it, newest first: each earlier version is the fact the next
 * one corrects (`parentId`) and was closed by it (`supersededBy`). Stops at `VERSIONS_MAX` rows, at a
 * link either side does not confirm, or at a row already followed. Empty when no fact has the id.
 */
export async function factVersions(facts: Pick<FactStore, 'get'>, id: string): Promise<FactRow[]> {
  const [fact] = await facts.get([id])
  if (!fact) return []
  const versions = [fact]
  for (let row = fact; row.parentId && versions.length < VERSIONS_MAX;) {
    const [parent] = await facts.get([row.parentId])
    if (!parent || parent.supersededBy !== row.id || versions.some((one) => one.id === parent.id)) break
    versions.push((row = parent))
  }
  return versions
}
