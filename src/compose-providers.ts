import type { Context } from 'koishi'
import type { Config } from './config'
import type { Counters, Logger } from './core/observability'
import type { ChatLunaService } from './providers/chatluna'
import { chatlunaInstalled } from './providers/chatluna'
import { createProviders } from './providers/factory'

/** The embedder, the memory's model and the fact judge's model, with a line for each setting that fell back. */
export function composeProviders(ctx: Context, config: Config, counters: Counters, log: Logger) {
  // ChatLuna (optional) starts on `ready`, usually after the memory: its models are looked up at each call
  const chatluna = { installed: chatlunaInstalled(), source: () => ctx.get('chatluna') as ChatLunaService | undefined }
  const providers = createProviders(
    ctx.http,
    {
      embedding: { ...config.embedding, chatlunaModel: config.chatluna.embeddings },
      llm: { ...config.llm, chatlunaModel: config.chatluna.model },
      retryIntervalSeconds: config.store.retryIntervalSeconds,
    },
    counters,
    log,
    chatluna,
  )
  for (const [kind, choice] of Object.entries(providers.choices)) {
    if (choice.fallback) log.warn(ctx.i18n.text([], [`memory.log.fallback-${kind}-${choice.fallback}`], [choice.configured]))
  }
  return { ...providers, chatluna }
}
