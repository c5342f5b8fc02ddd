import { defineMemoryKind } from '../module'
import { KoishiChannelSummaryStore } from './koishi-store'
import { RollingSummary } from './rolling-summary'
import { ExtractiveSummarizer, LlmSummarizer } from './summarizer'
import { defineChannelSummaryTable } from './table'

export interface ChannelSummariesPart {
  store: KoishiChannelSummaryStore
  rolling: RollingSummary
}

declare module '../module' {
  interface ModuleParts {
    channelSummaries: ChannelSummariesPart
  }
}

/** The rolling summary of each channel: what left the recent window, in a few sentences. */
export const channelSummariesModule = defineMemoryKind({
  name: 'channelSummaries',
  tables: defineChannelSummaryTable,
  create({ ctx, llm, counters, logger, part }, settings: { temperature: number }) {
    const store = new KoishiChannelSummaryStore(ctx)
    const rolling = new RollingSummary({
      store: part('messages').store,
      summaries: store,
      summarizer: llm ? new LlmSummarizer(llm, { temperature: settings.temperature }) : undefined,
      fallback: new ExtractiveSummarizer(),
      counters,
      logger,
    })
    return { store, rolling }
  },
  erase: (part) => ({
    // a summary may quote the erased lines: it is made again from what is left
    async messages(owner, erased) {
      let channelSummaries = 0
      for (const channelId of new Set(erased.map((row) => row.channelId)))
        channelSummaries += await part.store.remove({ platform: owner.platform, channelId })
      return { channelSummaries }
    },
  }),
})
