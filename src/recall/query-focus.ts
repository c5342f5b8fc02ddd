/**
 * What of a question counts when the asker's own memories are ranked. The asker's name and id say
 * nothing there: every fact of theirs carries the name ("Tom lives in Chengdu" for Tom's "where do
 * I live?"), their own lines never do, and a name in the question would only lift the shortest facts.
 */
export function withoutAsker(query: string, names: Iterable<string>): string {
  let focused = query
  for (const name of new Set([...names].map((n) => n.trim()).filter((n) => n.length > 0))) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const bounded =
      /^[\p{L}\p{N}_]/u.test(name) && !/\p{Script=Han}/u.test(name)
        ? `(?<![\\p{L}\\p{N}_])${escaped}(?:'s|’s)?(?![\\p{L}\\p{N}_])`
        : escaped
    focused = focused.replace(new RegExp(bounded, 'giu'), ' ')
  }
  return focused.trim() ? focused : query
}

const TIME_QUESTION =
  /\b(?:when|what (?:time|date|day|month|year)|which (?:day|date|month|year|week)|how long ago|since when)\b|什么时候|啥时候|哪天|哪一天|几号|几月|哪年|哪一年|多久以前|何时|几点/i

/** Whether a question asks when something happened or will. */
export function asksWhen(query: string): boolean {
  return TIME_QUESTION.test(query)
}

const DATED =
  /\b(?:1[89]|20)\d{2}\b|\b(?:jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b|\b(?:in|on|of|early|late|mid)[\s-]+may\b|\bmay\s+\d|\d\s+may\b|\b(?:yesterday|tomorrow|tonight|last|next|ago|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)\b|\d{1,4}\s*[年月日号]|[一二三四五六七八九十]+月|(?:周|星期|礼拜)[一二三四五六日天末]|[昨今明前后]天|[去今明前]年|[上下这]个?(?:周|星期|月)|刚才|最近/i

/** Whether a text says when: a date, a month, a weekday, or a time relative to when it was said. */
export function saysWhen(text: string): boolean {
  return DATED.test(text)
}
