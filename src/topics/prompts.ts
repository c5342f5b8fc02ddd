import type { LocalizedPrompt } from '../text/language'

/**
 * Prompts of LLM-assisted topic attribution (design §2.2), in English and Chinese; the one
 * matching the language of the message is used. Placeholders: `{message}` (the new message as
 * `name: content`), `{candidates}` (numbered topics with their recent messages).
 */
export interface TopicPrompts {
  choose: LocalizedPrompt
  title: LocalizedPrompt
}

const CHOOSE_ZH = `你在为群聊消息归类话题。群里常常同时聊着好几个话题，消息会交错出现。

新消息：
{message}

候选话题（每个附最近的几条消息）：
{candidates}

新消息接着哪个候选话题在聊？如果它和这些话题都无关，就是在开启新话题。
只回复一个 JSON 对象：
- 属于某个候选话题：{"topic": 话题编号}
- 开启新话题：{"topic": "new", "title": "不超过12个字的话题标题"}`

const CHOOSE_EN = `You are sorting group chat messages into conversation topics. Several topics often run at once and their messages interleave.

New message:
{message}

Candidate topics (each with its most recent messages):
{candidates}

Which candidate topic does the new message continue? If it belongs to none of them, it starts a new topic.
Respond with ONLY a JSON object:
- it continues a candidate: {"topic": <topic number>}
- it starts a new topic: {"topic": "new", "title": "<a short title, at most 6 words>"}`

const TITLE_ZH = `下面这条群聊消息开启了一个新话题。给这个话题起一个简短的标题（不超过12个字），用消息所用的语言。
只回复一个 JSON 对象：{"title": "标题"}

消息：
{message}`

const TITLE_EN = `The group chat message below starts a new conversation topic. Give the topic a short title (at most 6 words) in the language of the message.
Respond with ONLY a JSON object: {"title": "<title>"}

Message:
{message}`

export const DEFAULT_TOPIC_PROMPTS: TopicPrompts = {
  choose: { zh: CHOOSE_ZH, en: CHOOSE_EN },
  title: { zh: TITLE_ZH, en: TITLE_EN },
}

/**
 * Replaces `{name}` placeholders in one pass (a value that itself contains `{…}` is left as it is);
 * a value whose placeholder the template lacks is appended after a blank line.
 */
export function fillTopicPrompt(template: string, values: Record<string, string>): string {
  const used = new Set<string>()
  let out = template.replace(/\{(\w+)\}/g, (match, key: string) => {
    if (!Object.prototype.hasOwnProperty.call(values, key)) return match
    used.add(key)
    return values[key]
  })
  for (const [key, value] of Object.entries(values)) if (!used.has(key)) out = `${out.trimEnd()}\n\n${value}`
  return out
}
