import type { LocalizedPrompt } from '../text/language'

/**
 * Default prompt of the long-term memory chain, in English and Chinese: one call reads a finished
 * dialogue and lists the facts worth keeping (an empty list when there are none). The judge picks the
 * prompt matching the language of the conversation, so a Chinese conversation yields Chinese facts.
 * `{conversation}` is replaced by the dialogue as `[time] name: content` lines, `{now}` by the time of
 * the dialogue's last message, `{known}` by the speakers' current facts nearest to what they said
 * (`[k1] name: statement` lines), so the same call tells which of them a new fact replaces. The same
 * answer carries the entities, relations and preferences the dialogue names (design §4.5).
 */

export interface JudgePrompts {
  extraction: LocalizedPrompt
}

const EXTRACTION_EN = `Read the conversation below and list the facts about its users that are worth remembering for the long term.

Worth remembering: what the user says about themselves and their life, such as their name and identity, job or school, where they live or are going, family and relationships, pets, hobbies and what they are learning, likes and dislikes, health and allergies, things they own, birthdays and anniversaries, plans, appointments and dates.
Never a fact: questions (also questions about themselves, like "what's my birthday?" or "where do I live?"), requests to the assistant ("tell me a joke", "recommend a book"), hypotheticals and wishes ("if I won the lottery…", "I wish I had a dog", "I would move to Japan"), what the user does not want ("I don't want to go to work"), greetings, thanks, acknowledgements, small talk, remarks about the weather or the conversation, and anything the assistant said. A question never replaces a known fact.

Rules:
1. One fact per statement: when a message says several things, write several facts. Each fact stands on its own.
2. Write each fact as one complete sentence in English, in the third person, naming the user by the name shown in the conversation, e.g. "Alice is learning the guitar." or "Alice has a golden retriever named Max." A fact is about the person who said it: never state as a fact what someone says about somebody else. What the user says about someone else (their mother, a friend) names that person ("Alice's mother is a nurse."); what the user only quotes or says to someone else ("my mom said I should rest", "Bob, you should apply") is not a fact about the user. When putting a sentence in the third person would change its words or grammar, keep the user's words: "Alice said: I completely understand how that feels."
3. Replace every relative time (today, tomorrow, next Monday, in three days, next month, next September…) with the absolute date, counted from the time the message was sent, shown in brackets before it. E.g. "I'm going to Tokyo next September", sent on 2026-11-26, becomes "Alice is going to Tokyo in September 2027."
4. Keep the user's own wording and details; do not add anything that was not said.
5. What is already known about the speakers is listed below, each with its key. When a new fact shows that one of them is no longer true (they moved, changed job, are no longer vegetarian, their age or relationship changed), add "replaces": "<its key>" to the new fact. A fact that only adds to what is known replaces nothing. When the conversation says since when the new fact is true, add "since": "YYYY-MM-DD".
6. Also list, when the conversation names them: "entities" (people, places, organisations, products, events: name, type PERSON, LOCATION, ORGANIZATION, PRODUCT, EVENT or OTHER, other names, a short description), "relations" between them (subject, a short predicate in English, object), and the speakers' "preferences" (about, key such as food or music, value).

Respond with ONLY a JSON object: {"facts": [{"about": "<the name of the person, as shown in the conversation>", "fact": "...", "replaces": "<key, only when it replaces one>", "since": "<YYYY-MM-DD, only when said>"}], "entities": [{"name": "...", "type": "LOCATION", "aliases": [], "description": "..."}], "relations": [{"subject": "...", "predicate": "...", "object": "..."}], "preferences": [{"about": "...", "key": "...", "value": "..."}]}. If nothing is worth remembering, respond {"facts": []}.

Known facts:
{known}

The conversation ended at {now}.
Conversation:
{conversation}`

const EXTRACTION_ZH = `阅读下面的对话，列出其中值得长期记住的关于各位用户的事实。

值得记住的：用户说到的关于自己和自己生活的信息，例如名字和身份、工作或学校、住在哪里或要去哪里、家人和人际关系、宠物、爱好和正在学的东西、喜欢和不喜欢的、健康和过敏、拥有的东西、生日和纪念日、计划、约定和日期。
不是事实：提问（包括关于用户自己的提问，如"我的生日是哪天？""我住在哪里？"）、对助手的请求（"给我讲个笑话""推荐几本书"）、假设和愿望（"如果我中了彩票……""要是我有一只狗就好了""万一……"）、用户不想做的事（"我不想上班"）、问候、感谢、附和与确认、闲聊、对天气或对话本身的评论，以及助手说的任何话。提问永远不替换任何已知事实。

规则：
1. 一条陈述一个事实：一条消息说了几件事，就写成几个事实，每个事实独立成立。
2. 每个事实写成一句完整的中文陈述，使用第三人称，用对话中显示的名字称呼用户，例如"小明养了一只柯基，叫豆豆。"或"小明在学吉他。"事实只关于说这句话的人本人：别人对他人的说法不算事实。用户说到别人（妈妈、朋友）的事，写明是谁（"小明的妈妈是护士。"）；用户只是转述别人的话或对别人说的话（"我妈说我应该多休息""小红，你应该去申请"）不是关于用户的事实。
3. 把所有相对时间（今天、明天、后天、下周三、下个月、明年、周末……）换成绝对日期，以该消息发送的时间（消息前方括号中）为准。例如 2026-11-26 发送的"我下周三要去上海出差"写成"小明2026年12月2日（周三）要去上海出差。"只换真正的日期。用户讲到的生活事件（旅行、搬家、婚礼、新工作）保留它的绝对日期。
4. 保留用户原本的说法和细节，不要添加对话中没有说过的内容。
5. 下面列出了已知的关于这些用户的事实，每条带有编号。如果新事实说明其中某条已经不再成立（搬家了、换工作了、不再吃素了、年龄或感情状况变了），在新事实里加上 "replaces": "<那条的编号>"。只是补充已知内容的事实不替换任何一条。如果对话说了新事实从什么时候开始成立，加上 "since": "YYYY-MM-DD"。
6. 另外列出对话中提到的："entities"（人物、地点、组织、产品、事件：名字，类型 PERSON、LOCATION、ORGANIZATION、PRODUCT、EVENT 或 OTHER，别名，简短描述），它们之间的 "relations"（主体、简短的中文谓语、客体），以及用户的 "preferences"（about、类别如食物或音乐、具体内容）。

只回复一个 JSON 对象：{"facts": [{"about": "<这个人在对话中显示的名字>", "fact": "……", "replaces": "<编号，仅在替换时>", "since": "<YYYY-MM-DD，仅在说了时>"}], "entities": [{"name": "……", "type": "LOCATION", "aliases": [], "description": "……"}], "relations": [{"subject": "……", "predicate": "……", "object": "……"}], "preferences": [{"about": "……", "key": "……", "value": "……"}]}。如果没有值得记住的内容，回复 {"facts": []}。

已知事实：
{known}

对话结束于 {now}。
对话：
{conversation}`

export const DEFAULT_PROMPTS: JudgePrompts = {
  extraction: { zh: EXTRACTION_ZH, en: EXTRACTION_EN },
}

/**
 * Puts the conversation, the dialogue's time and the known facts into a prompt, in one pass (a
 * placeholder inside what is put in stays as it is); a custom prompt without the `{conversation}`
 * placeholder gets the conversation appended.
 */
export function fillPrompt(template: string, conversation: string, now = '', known = ''): string {
  const values: Record<string, string> = { conversation, now, known }
  const filled = template.replace(/\{(conversation|now|known)\}/g, (_, name: string) => values[name])
  return template.includes('{conversation}') ? filled : `${filled.trimEnd()}\n\n${conversation}`
}
