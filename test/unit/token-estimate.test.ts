// The plugin's token count is an estimate of o200k_base from above (src/text/token-count.ts); this holds
// it against the real tokenizer (gpt-tokenizer, a development dependency only) on chat in Chinese and
// English, mixed lines, code, emoji and numbers.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { countTokens as countO200k } from 'gpt-tokenizer'
import { describe, expect, it } from 'vitest'
import { countTokens, ESTIMATED_ENCODING } from '../../src/text/token-count'

const FIXTURES = join(__dirname, '../fixtures')

/** Real o200k_base tokens; special-token markers in the text count as plain text, as they are sent. */
function real(text: string): number {
  return countO200k(text.replace(/<\|/g, '< |'))
}

function fixtureTexts(lang: 'zh' | 'en'): string[] {
  const texts: string[] = []
  for (const file of ['extraction.jsonl', 'entities.jsonl', 'knowledge-questions.jsonl']) {
    for (const line of readFileSync(join(FIXTURES, file), 'utf8').split('\n')) {
      if (!line.trim()) continue
      const row = JSON.parse(line) as { lang: string; text?: string; lines?: string[]; questions?: { question: string }[] }
      if (row.lang !== lang) continue
      texts.push(...(row.text ? [row.text] : []), ...(row.lines ?? []), ...(row.questions ?? []).map((q) => q.question))
    }
  }
  return texts
}

/** The values of a locale file, one text each (the plugin's own Chinese and English, with placeholders). */
function localeTexts(name: string): string[] {
  const file = readFileSync(join(__dirname, '../../locales', name), 'utf8')
  return [...file.matchAll(/^\s*[\w$-]+: (.+)$/gm)].map((m) => m[1].replace(/^"|"$/g, '')).filter((text) => text.length > 1)
}

const CORPUS: Record<string, string[]> = {
  'Chinese chat': fixtureTexts('zh'),
  'English chat': fixtureTexts('en'),
  'plugin texts, Chinese': localeTexts('zh-CN.yml'),
  'plugin texts, English': localeTexts('en-US.yml'),
  mixed: [
    '我明天去 Shanghai 开会，meeting 在下午 3 点',
    'Alice: 今晚 8:30 一起打 Apex 吗？',
    '用 npm install koishi-plugin-memory 装一下，再看 README.zh-CN.md',
    '他说 "see you tomorrow" 然后就下线了 😂',
    '小明 (Xiao Ming) 在 Google 上班，做 TypeScript 和 Rust',
    'こんにちは、明日の会議は10時からです',
    '안녕하세요, 오늘 날씨가 좋네요',
    'Привет! Как дела? Завтра в 9:00 встреча.',
    'naïve café, Zürich, São Paulo, Kraków',
  ],
  code: readdirSync(join(__dirname, '../e2e'))
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => readFileSync(join(__dirname, '../e2e', name), 'utf8').split(/\n\s*\n/))
    .filter((block) => block.trim()),
  emoji: ['😀', '好的👍', 'lol 😂😂😂', '生日快乐🎂🎉🎉', '❤️❤️', '👨‍👩‍👧‍👦 family', '🇨🇳🇺🇸', '谢谢🙏🏻', '[表情]😅', '✨🌟⭐'],
  numbers: [
    '13800138000',
    '2026-03-14 20:30',
    '¥1,299.00',
    '3.14159265358979',
    '我的生日是10月25日',
    'order #4821-9930-1127',
    '100%',
    'v1.18.11',
    '0x7fffffff',
    '第3季第12集',
  ],
}

interface Figures {
  real: number
  estimate: number
  /** The most the estimate fell short of the real count on one text. */
  worstShort: number
}

function figures(texts: string[]): Figures {
  let realSum = 0
  let estimateSum = 0
  let worstShort = 0
  for (const text of texts) {
    const [r, e] = [real(text), countTokens(text)]
    realSum += r
    estimateSum += e
    // short by more than 2 tokens and 10 % of the text is a budget that does not hold
    if (r - e > Math.max(2, Math.ceil(r * 0.1))) throw new Error(`${e} estimated, ${r} real: ${JSON.stringify(text)}`)
    worstShort = Math.max(worstShort, r - e)
  }
  return { real: realSum, estimate: estimateSum, worstShort }
}

describe('the token estimate against o200k_base', () => {
  it('names the encoding it estimates', () => {
    expect(ESTIMATED_ENCODING).toBe('o200k_base')
    expect(countTokens('')).toBe(0)
  })

  // the ratio of estimated to real tokens over each part of the corpus: never below 1 (a budget holds
  // for what is sent), and at most 1.4 (a budget is not mostly wasted); the figures are in docs/benchmarks.md
  for (const [name, texts] of Object.entries(CORPUS)) {
    it(`${name}: over-counts, never by much, and no text falls short by more than 2 tokens or 10 %`, () => {
      expect(texts.length).toBeGreaterThan(5)
      const { real: r, estimate: e } = figures(texts)
      expect(e / r).toBeGreaterThanOrEqual(1)
      expect(e / r).toBeLessThanOrEqual(1.4)
    })
  }

  it('never falls as a text grows, so a cut found by binary search fits', () => {
    for (const text of [...CORPUS.mixed, ...CORPUS['Chinese chat'].slice(0, 20), ...CORPUS.emoji]) {
      let last = 0
      for (let i = 1; i <= text.length; i++) {
        const n = countTokens(text.slice(0, i))
        expect(n).toBeGreaterThanOrEqual(last)
        last = n
      }
    }
  })
})
