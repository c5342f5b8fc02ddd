import { z } from 'zod'
import type { Counters, Logger } from '../core/observability'
import { generateStructured } from '../providers/structured'
import type { LLM } from '../providers/types'
import { BudgetSpentError } from '../providers/types'
import { detectLanguage } from '../text/language'
import type { Draft } from './extractor'
import type { KnowledgeStore } from './store'
import { combine, nameKey } from './names'
import { PROFILE_PROMPTS, profileSourceLines, summarizeProfile } from './profile-text'
import { OPPOSITE_KEYS } from './rules'
import type { ProfileRow } from './types'
import { profileId } from './types'
import type { GuildRef, PersonRef } from '../scope'

export interface ProfileDeps {
  store: KnowledgeStore
  /** The user's facts in the profile's scope, newest first (their own, as the facts domain keeps them). */
  factsOf(ref: PersonRef, limit: number): Promise<string[]>
  /** Set: the consolidation timer writes `profileText` with it (one call per profile). Unset: the text is rebuilt offline at each change. */
  llm?: LLM
  /** Charges a profile's model call to its group's (or private chat's) budget. */
  charge?<T>(where: PersonRef, work: () => Promise<T>): Promise<T>
  /** New items that make a profile due for consolidation before its day is over. */
  threshold: number
  counters: Counters
  logger: Logger
  now(): Date
}

const DAY_MS = 86_400_000
const FACTS_READ = 20
const ProfileAnswer = z.object({ profile: z.string().min(1).max(2000) })

/**
 * User profiles (design §4.6): per user per scope, preferences and traits from the user's own
 * turns, and a `profileText` consolidated from them and the user's facts.
 */
export class ProfileBook {
  constructor(private readonly deps: ProfileDeps) {}

  get(ref: PersonRef): Promise<ProfileRow | undefined> {
    return this.deps.store.profile(ref)
  }

  /** Adds a dialogue's preferences and traits to its speakers' profiles in the dialogue's scope. */
  async learn(
    where: GuildRef,
    draft: Pick<Draft, 'preferences' | 'traits'>,
    sourcesOf: (turns: number[]) => string[],
    timeOf: (turns: number[]) => Date,
  ): Promise<void> {
    const users = new Map<string, string>()
    for (const item of [...draft.preferences, ...draft.traits]) users.set(item.userId, item.userName)
    for (const [userId, userName] of users) {
      const ref = { platform: where.platform, guildId: where.guildId, userId }
      const profile = (await this.deps.store.profile(ref)) ?? this.blank(ref, userName)
      let changes = 0
      for (const item of draft.preferences.filter((one) => one.userId === userId)) {
        const at = timeOf(item.turns).getTime()
        const sourceIds = sourcesOf(item.turns)
        const current = profile.preferences.filter((one) => one.validTo === null && nameKey(one.value) === nameKey(item.value))
        for (const older of current.filter((one) => one.key === OPPOSITE_KEYS[item.key] || (item.stopped && one.key === item.key))) {
          older.validTo = at
          changes++
        }
        if (item.stopped) continue
        const same = current.find((one) => one.key === item.key)
        if (same) {
          same.confidence = combine(same.confidence, item.confidence)
          same.sourceIds = [...new Set([...same.sourceIds, ...sourceIds])]
        } else {
          profile.preferences.push({
            key: item.key,
            value: item.value,
            confidence: item.confidence,
            sourceIds,
            validFrom: at,
            validTo: null,
          })
          changes++
        }
      }
      for (const item of draft.traits.filter((one) => one.userId === userId)) {
        const same = profile.traits.find((one) => nameKey(one.name) === nameKey(item.name))
        if (same) same.confidence = combine(same.confidence, item.confidence)
        else {
          profile.traits.push({ name: item.name, confidence: item.confidence, sourceIds: sourcesOf(item.turns) })
          changes++
        }
      }
      profile.userName = userName
      await this.changed(profile, changes)
    }
  }

  /** The user's facts changed (`count` new ones in this scope): the profile is due sooner. */
  async noteFacts(ref: PersonRef, userName: string, count: number): Promise<void> {
    if (count <= 0) return
    const profile = (await this.deps.store.profile(ref)) ?? this.blank(ref, userName)
    await this.changed(profile, count)
  }

  /**
   * Consolidates the profiles that are due: past the threshold of new items, or with anything new
   * for a day. One model call each (offline: the summary). Returns how many were consolidated.
   */
  async consolidateDue(limit = 50): Promise<number> {
    const now = this.deps.now().getTime()
    const due = (await this.deps.store.pendingProfiles(limit * 4)).filter(
      (row) => row.pending >= this.deps.threshold || now - row.consolidatedAt.getTime() >= DAY_MS,
    )
    let done = 0
    const charge = this.deps.charge ?? ((_where, work) => work())
    for (const profile of due.slice(0, limit)) if (await charge(profile, () => this.consolidate(profile))) done++
    return done
  }

  /** Writes `profileText` from the profile's items and the user's facts. False when the model failed (it stays due). Never throws. */
  async consolidate(profile: ProfileRow, useModel = true): Promise<boolean> {
    const { llm, counters, logger } = this.deps
    try {
      const sources = { ...profile, facts: await this.deps.factsOf(profile, FACTS_READ) }
      const language = detectLanguage([profileSourceLines(sources), profile.userName].join('\n'), 'zh')
      if (llm && useModel) {
        const prompt = PROFILE_PROMPTS[language].replace('{name}', profile.userName).replace('{sources}', profileSourceLines(sources))
        const answer = await generateStructured(llm, prompt, ProfileAnswer, { label: 'knowledge.profile', counters, logger }).catch(
          (error: unknown) => {
            // the group's calls of the day are spent: the offline summary now, the model's text on a later day
            if (error instanceof BudgetSpentError) return undefined
            throw error
          },
        )
        profile.profileText = answer ? answer.profile.trim() : summarizeProfile(sources, language)
        if (answer) profile.pending = 0
      } else {
        profile.profileText = summarizeProfile(sources, language)
        if (!llm) profile.pending = 0
      }
      profile.consolidatedAt = this.deps.now()
      await this.deps.store.upsertProfile(profile)
      counters.inc('knowledge.profiles-consolidated')
      return true
    } catch (error) {
      logger.warn('could not consolidate a user profile: %s', (error as Error).message)
      return false
    }
  }

  /** Writes the text again now from what the profile holds (something was forgotten); the model's text is due again. */
  async rewrite(profile: ProfileRow): Promise<void> {
    await this.changed(profile, 1)
  }

  private async changed(profile: ProfileRow, changes: number): Promise<void> {
    profile.pending += changes
    profile.updatedAt = this.deps.now()
    // the offline text costs nothing, so it is kept current; with a model, the timer writes the better one
    if (changes) await this.consolidate(profile, false)
    else await this.deps.store.upsertProfile(profile)
  }

  private blank(ref: PersonRef, userName: string): ProfileRow {
    const now = this.deps.now()
    return {
      id: profileId(ref),
      platform: ref.platform,
      guildId: ref.guildId,
      userId: ref.userId,
      userName,
      profileText: '',
      preferences: [],
      traits: [],
      pending: 0,
      updatedAt: now,
      consolidatedAt: new Date(0),
    }
  }
}
