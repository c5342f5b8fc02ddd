import { ref } from 'vue'
import type { GroupHit, GroupRef } from '../src/console/types'
import { call } from './api'

/** The groups the memory has heard, shared by the Groups and Moderation tabs. */
const groups = ref<GroupHit[]>([])
const loaded = ref(false)

export function useGroups() {
  async function load() {
    groups.value = await call<GroupHit[]>('memory/groups')
    loaded.value = true
  }
  return { groups, loaded, load }
}

export const groupLabel = (group: GroupRef) => `${group.platform}:${group.guildId}`
export const sameGroup = (a?: GroupRef, b?: GroupRef) => !!a && !!b && a.platform === b.platform && a.guildId === b.guildId
