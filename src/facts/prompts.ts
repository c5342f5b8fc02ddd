import type { LocalizedPrompt } from '../text/language'

/**
 * Default prompts of the long-term memory chain (seed 003 §4), in English and Chinese. The judge picks
 * the one matching the language of the conversation, so a Chinese conversation yields a Chinese
 * memory. `{conversation}` is replaced by the dialogue rendered as `name: content` lines.
 */

export interface JudgePrompts {
  decision: LocalizedPrompt
  summarizer: LocalizedPrompt
}

const DECISION_EN = `Analyze the following conversation and determine if it contains critical information worth remembering for the long term.
Critical information includes user preferences, facts, appointments, plans, or relationships.
Respond with ONLY a valid JSON object.
If the information is important, respond with: {"should_remember": true, "reason": "A brief explanation of why."}
If the conversation is trivial or small talk, respond with: {"should_remember": false}

Conversation:
{conversation}`

const DECISION_ZH = `分析下面的对话，判断其中是否包含值得长期记住的关键信息。
关键信息包括用户的偏好、事实、约定、计划或人际关系。
只回复一个合法的 JSON 对象。
如果信息重要，回复：{"should_remember": true, "reason": "简要说明原因。"}
如果对话琐碎或只是闲聊，回复：{"should_remember": false}

对话：
{conversation}`

const SUMMARIZER_EN = `Summarize the following conversation into a single, concise, and complete statement from a third-person perspective.
Refer to people by the names shown in the conversation.
For example: "Alice's birthday is on October 25th."

Conversation:
{conversation}

Summary:`

const SUMMARIZER_ZH = `将下面的对话总结为一句简洁、完整的中文陈述，使用第三人称，并用对话中显示的名字称呼相关的人。
只输出这一句话。
例如："小明的生日是10月25日。"

对话：
{conversation}

总结：`

export const DEFAULT_PROMPTS: JudgePrompts = {
  decision: { zh: DECISION_ZH, en: DECISION_EN },
  summarizer: { zh: SUMMARIZER_ZH, en: SUMMARIZER_EN },
}

/** Puts the conversation into a prompt; a custom prompt without the placeholder gets it appended. */
export function fillPrompt(template: string, conversation: string): string {
  if (template.includes('{conversation}')) return template.split('{conversation}').join(conversation)
  return `${template.trimEnd()}\n\n${conversation}`
}
