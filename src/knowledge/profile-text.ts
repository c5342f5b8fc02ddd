import type { Language } from '../text/language'
import type { Preference, Trait } from './types'

/** What a profile is written from: the user's current preferences and traits and their facts. */
export interface ProfileSources {
  userName: string
  preferences: Preference[]
  traits: Trait[]
  facts: string[]
}

const LABELS: Record<Language, { traits: string; facts: string; separator: string; end: string; key: Record<string, string> }> = {
  zh: { traits: '性格', facts: '已知', separator: '、', end: '。', key: { likes: '喜欢', dislikes: '不喜欢' } },
  en: {
    traits: 'Traits',
    facts: 'Known',
    separator: ', ',
    end: '.',
    key: { 喜欢: 'Likes', 不喜欢: 'Dislikes', likes: 'Likes', dislikes: 'Dislikes' },
  },
}

/** Most facts quoted in an offline profile. */
const TOP_FACTS = 5

/** Words that say someone likes or dislikes something, in either language. */
const LIKING = /喜欢|爱|讨厌|\b(?:likes?|loves?|enjoys?|prefers?|hates?|dislikes?|favou?rite)\b/iu

/** The offline profile: the surest current preferences by kind, the traits and the newest facts, in one short text. */
export function summarizeProfile(sources: ProfileSources, language: Language): string {
  const labels = LABELS[language]
  const colon = language === 'zh' ? '：' : ': '
  const current = sources.preferences.filter((one) => one.validTo === null)
  // by what the reader sees: 喜欢 said in Chinese and likes said in English are one line
  const byLabel = new Map<string, Preference[]>()
  for (const preference of current) {
    const label = labels.key[preference.key] ?? preference.key
    byLabel.set(label, [...(byLabel.get(label) ?? []), preference])
  }
  const parts: string[] = []
  for (const [label, list] of byLabel) {
    const values = [...new Set(list.sort((a, b) => b.confidence - a.confidence).map((one) => one.value))]
    parts.push(`${label}${colon}${values.slice(0, 6).join(labels.separator)}${labels.end}`)
  }
  if (sources.traits.length)
    parts.push(
      `${labels.traits}${colon}${[...sources.traits]
        .sort((a, b) => b.confidence - a.confidence)
        .map((trait) => trait.name)
        .join(labels.separator)}${labels.end}`,
    )
  // a fact that only says what a preference above says ("alice喜欢猫。" beside 喜欢：猫) is not repeated
  const restates = (fact: string) => LIKING.test(fact) && current.some((one) => fact.toLowerCase().includes(one.value.toLowerCase()))
  const facts = sources.facts.filter((fact) => !restates(fact)).slice(0, TOP_FACTS)
  if (facts.length) parts.push(`${labels.facts}${colon}${joinSentences(facts)}`)
  return joinSentences(parts)
}

/** Sentences one after another: a space after one that ends in Latin punctuation, none after a Chinese one. */
function joinSentences(sentences: string[]): string {
  return sentences.reduce((text, next) => (!text ? next : /[.!?:;]$/.test(text) ? `${text} ${next}` : text + next), '')
}

export const PROFILE_PROMPTS: Record<Language, string> = {
  zh: [
    '根据下面关于用户「{name}」的已知信息，用中文写一段简短的用户画像（不超过 120 字）：兴趣偏好、性格特点、重要的个人情况。',
    '只写信息里有的内容，不要猜测。以 JSON 回答：{"profile": "..."}',
    '',
    '{sources}',
  ].join('\n'),
  en: [
    'From what is known about the user "{name}" below, write a short profile of them in English (at most 80 words): preferences, traits, important personal circumstances.',
    'Write only what the information says; do not guess. Answer in JSON: {"profile": "..."}',
    '',
    '{sources}',
  ].join('\n'),
}

/** The sources as lines for the model. */
export function profileSourceLines(sources: ProfileSources): string {
  const current = sources.preferences.filter((one) => one.validTo === null)
  return [
    ...current.map((one) => `- ${one.key}: ${one.value}`),
    ...sources.traits.map((trait) => `- trait: ${trait.name}`),
    ...sources.facts.map((fact) => `- ${fact}`),
  ].join('\n')
}
