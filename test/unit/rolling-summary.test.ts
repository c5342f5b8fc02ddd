import { describe, expect, it } from 'vitest'
import { InMemoryMessageStore } from '../fakes/message-store'
import { RollingSummary } from '../../src/channel-summaries/rolling-summary'
import { InMemoryChannelSummaryStore } from '../fakes/channel-summaries'
import type { ConversationSummarizer } from '../../src/channel-summaries/summarizer'
import { ExtractiveSummarizer, LlmSummarizer } from '../../src/channel-summaries/summarizer'
import { splitSentences } from '../../src/text/sentences'
import { countTokens } from '../../src/text/token-count'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { channel, row, T0 } from '../fakes/message-rows'

class Recording implements ConversationSummarizer {
  readonly id = 'recording'
  calls: Parameters<ConversationSummarizer['summarize']>[0][] = []
  fail = false
  async summarize(input: Parameters<ConversationSummarizer['summarize']>[0]) {
    if (this.fail) throw new Error('model down')
    this.calls.push(input)
    return `summary of ${input.messages.length} after "${input.previous}"`
  }
}

function setup(keepRecent = 20) {
  const store = new InMemoryMessageStore()
  const summaries = new InMemoryChannelSummaryStore()
  const summarizer = new Recording()
  const counters = new Counters()
  let minute = 0
  const rolling = new RollingSummary(
    {
      store,
      summaries,
      summarizer,
      fallback: new ExtractiveSummarizer(),
      counters,
      logger: quiet,
      now: () => new Date(T0 + (minute + 1) * 60_000),
    },
    { keepRecent, refreshEvery: 5 },
  )
  const say = (n: number) => {
    for (let i = 0; i < n; i++) {
      store.add(row(`m${minute}`, minute % 2 ? 'ann' : 'bob', `message ${minute} about the garden and tomatoes`, minute))
      minute++
    }
  }
  return { store, summaries, summarizer, counters, rolling, say }
}

describe('RollingSummary', () => {
  it('waits until 10 messages have left the recent window, then covers them', async () => {
    const { rolling, say, summarizer, summaries } = setup()
    say(29)
    expect(await rolling.refresh(channel)).toBe('not-due')
    say(1)
    expect(await rolling.refresh(channel)).toBe('summarised')
    expect(summarizer.calls[0].messages).toHaveLength(10)
    expect(summarizer.calls[0].messages[0]).toEqual({ name: 'Bob', content: 'message 0 about the garden and tomatoes' })
    const record = await summaries.get(channel)
    expect(record).toMatchObject({ coveredCount: 10, coveredId: 'test:c1:m9', summarizer: 'recording', summary: 'summary of 10 after ""' })
    expect(await rolling.get(channel)).toBe('summary of 10 after ""')
  })

  it('refreshes every 5 new messages, incrementally from the previous summary', async () => {
    const { rolling, say, summarizer, summaries } = setup()
    say(30)
    await rolling.refresh(channel)
    say(4)
    expect(await rolling.refresh(channel)).toBe('not-due')
    say(1)
    expect(await rolling.refresh(channel)).toBe('summarised')
    expect(summarizer.calls[1].previous).toBe('summary of 10 after ""')
    expect(summarizer.calls[1].messages.map((m) => m.content.split(' ')[1])).toEqual(['10', '11', '12', '13', '14'])
    expect((await summaries.get(channel))?.coveredCount).toBe(15)
  })

  it('says when a refresh may be due without a query per message', () => {
    const { rolling } = setup()
    const results = Array.from({ length: 10 }, () => rolling.note(channel))
    expect(results).toEqual([false, false, false, false, true, false, false, false, false, true])
  })

  it('uses the extractive summariser when the model fails, and never throws', async () => {
    const { rolling, say, summarizer, summaries, counters } = setup(2)
    summarizer.fail = true
    say(12)
    expect(await rolling.refresh(channel)).toBe('summarised')
    const record = await summaries.get(channel)
    expect(record?.summarizer).toBe('extractive')
    expect(record?.summary).toContain('garden')
    expect(counters.get('summary.llm-failed')).toBe(1)
    const broken = new RollingSummary({
      store: {
        window: async () => {
          throw new Error('db down')
        },
      },
      summaries,
      fallback: new ExtractiveSummarizer(),
      counters,
      logger: quiet,
    })
    expect(await broken.refresh(channel)).toBe('failed')
    expect(counters.get('summary.failed')).toBe(1)
  })
})

describe('summarisers', () => {
  it('extracts the telling sentences with their speakers within the token limit', async () => {
    const summarizer = new ExtractiveSummarizer()
    const messages = [
      { name: 'Ann', content: 'hi!' },
      { name: 'Bob', content: 'We moved the release to Friday. The database migration needs another review.' },
      { name: 'Ann', content: 'ok' },
      { name: 'Carol', content: 'I will review the database migration tomorrow morning.' },
      { name: 'Bob', content: 'Great, the release notes are drafted as well.' },
    ]
    const summary = await summarizer.summarize({ previous: '', messages, maxTokens: 30 })
    expect(countTokens(summary)).toBeLessThanOrEqual(30)
    expect(summary).toContain('database migration')
    expect(summary).not.toContain('hi!')
    expect(summary.split('\n').every((line) => /^(Bob|Carol|Ann): /.test(line))).toBe(true)
    const next = await summarizer.summarize({ previous: summary, messages: [{ name: 'Dan', content: 'ok cool' }], maxTokens: 30 })
    expect(next).toBe(summary)
  })

  it('splits Chinese and English sentences', () => {
    expect(splitSentences('今天下雨了。我们改到明天吧！OK? fine')).toEqual(['今天下雨了。', '我们改到明天吧！', 'OK?', 'fine'])
  })

  it('asks the model in the conversation language and cleans its answer', async () => {
    const llm = new FakeLLM(() => '<think>hmm</think>\n摘要：小明周六要搬家，小红会去帮忙。', { id: 'fake' })
    const summarizer = new LlmSummarizer(llm)
    const summary = await summarizer.summarize({
      previous: '',
      messages: [
        { name: '小明', content: '我周六搬家' },
        { name: '小红', content: '我去帮你' },
      ],
      maxTokens: 100,
    })
    expect(summary).toBe('小明周六要搬家，小红会去帮忙。')
    expect(llm.prompts[0]).toContain('已有摘要')
    expect(llm.prompts[0]).toContain('小明: 我周六搬家')
    expect(summarizer.id).toBe('llm:fake')
    const empty = new LlmSummarizer(new FakeLLM(() => '  ', { id: 'e' }))
    await expect(empty.summarize({ previous: '', messages: [{ name: 'a', content: 'hello there' }], maxTokens: 50 })).rejects.toThrow()
  })
})
