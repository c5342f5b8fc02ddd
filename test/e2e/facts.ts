// What the sandbox users say, the facts each message states, and how `memory.list` shows them.

export interface Fact {
  /** A short name for the report. */
  name: string
  /** Matches the fact however it is worded (Chinese or English, the user's words or a summary's). */
  pattern: RegExp
}

export interface Script {
  /** The messages, in order. */
  says: string[]
  /** Each fact stated, that must come back as one entry of its own. */
  facts: Fact[]
}

/**
 * User A in their private chat, in Chinese and in English. Five messages, so that the private
 * chat's message count may end the dialogue as well as the quiet time.
 */
export const PRIVATE_A: Script = {
  says: [
    '我叫小明，是一名大学老师，住在成都。',
    '我养了一只柯基，叫豆豆',
    'I am learning the guitar',
    '我对花生过敏',
    'My favourite food is hotpot',
  ],
  facts: [
    { name: 'name 小明', pattern: /小明|xiao\s?ming/i },
    { name: 'job 大学老师', pattern: /老师|教师|teacher|lecturer|professor/i },
    { name: 'city 成都', pattern: /成都|chengdu/i },
    { name: 'corgi 豆豆', pattern: /柯基|豆豆|corgi|doudou/i },
    { name: 'guitar', pattern: /guitar|吉他/i },
    { name: 'peanut allergy', pattern: /花生|peanut/i },
    { name: 'hotpot', pattern: /hotpot|hot pot|火锅/i },
  ],
}

/** User B in the group chat. No plugin answers them: only the quiet time ends the dialogue. */
export const GROUP_B: Script = {
  says: ['我下周三要去上海出差', 'I have a golden retriever named Max'],
  facts: [
    { name: 'trip to 上海', pattern: /上海|shanghai/i },
    { name: 'golden retriever Max', pattern: /\bmax\b|golden retriever|金毛/i },
  ],
}

/** The entries of a `memory.list` answer: its lines but the header (`共 N 条记忆…` / `N memories…`). */
export function entries(answer: string): string[] {
  const lines = answer
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  return lines.filter((line, i) => !(i === 0 && /(共\s*\d+\s*条|\d+\s+memor)/i.test(line)))
}

export interface FactResult {
  fact: Fact
  ok: boolean
  detail: string
}

/**
 * Whether each fact is one entry of its own: some entry names it and no other fact of the same
 * script. An entry that names several facts is a lump, and counts for none of them.
 */
export function ownEntries(answer: string, facts: Fact[]): FactResult[] {
  const lines = entries(answer)
  return facts.map((fact) => {
    const naming = lines.filter((line) => fact.pattern.test(line))
    const own = naming.filter((line) => facts.every((other) => other === fact || !other.pattern.test(line)))
    if (own.length) return { fact, ok: true, detail: own[0] }
    if (naming.length) {
      const others = facts.filter((other) => other !== fact && other.pattern.test(naming[0])).map((other) => other.name)
      return { fact, ok: false, detail: `only in an entry that also states ${others.join(', ')}: ${naming[0]}` }
    }
    return { fact, ok: false, detail: `no entry names it; the answer was: ${answer.replace(/\n/g, ' ⏎ ')}` }
  })
}

/** Facts of `facts` that `answer` mentions (for checks that another user's facts stay out). */
export function mentioned(answer: string, facts: Fact[]): Fact[] {
  const lines = entries(answer)
  return facts.filter((fact) => lines.some((line) => fact.pattern.test(line)))
}

/**
 * The totals `memory.status` shows to a user with the stats authority: all memories, and what still
 * waits (background jobs plus dialogues not yet ended); undefined when the wording changed.
 */
export function statusCounts(answer: string): { facts?: number; queue?: number } {
  const facts = /(?:全部记忆|All memories)\s*[：:]\s*(\d+)/i.exec(answer)
  const jobs = /(?:后台任务\s*(\d+)\s*个|(\d+) background jobs)/i.exec(answer)
  const dialogues = /(?:待结束的对话\s*(\d+)\s*段|(\d+) dialogues to end)/i.exec(answer)
  const count = (match: RegExpExecArray | null) => (match ? Number(match[1] ?? match[2]) : undefined)
  const waiting = jobs && dialogues ? count(jobs)! + count(dialogues)! : undefined
  return { facts: count(facts), queue: waiting }
}
