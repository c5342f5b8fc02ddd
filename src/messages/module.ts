import { defineMemoryKind } from '../module'
import { KoishiMessageStore, KoishiWatermarkStore } from './koishi-store'
import { MessageIndex } from './message-index'
import { defineMessageTable, defineWatermarkTable } from './table'

/** Captured messages: the truth every other kind is derived from. */
export interface MessagesPart {
  store: KoishiMessageStore
  index: MessageIndex
  /** Each channel's memorised-up-to point. */
  watermarks: KoishiWatermarkStore
}

declare module '../module' {
  interface ModuleParts {
    messages: MessagesPart
  }
}

export const messagesModule = defineMemoryKind({
  name: 'messages',
  tables(ctx) {
    defineMessageTable(ctx)
    defineWatermarkTable(ctx)
  },
  create({ ctx, sync, budget, logger }) {
    const store: KoishiMessageStore = new KoishiMessageStore(ctx, {
      heldBytes: budget.claim('channels', () => ({ bytes: store.held().bytes, entries: store.held().channels })),
      rowBytes: budget.claim('rows', () => store.cachedRows()),
      logger,
    })
    return { store, index: new MessageIndex({ ...sync, rows: store }), watermarks: new KoishiWatermarkStore(ctx) }
  },
  indexes: (part) => [part.index.indexed],
  erase: (part) => ({
    async messages(_owner, erased) {
      const ids = erased.map((row) => row.id)
      await part.index.remove(ids)
      await part.store.remove(ids)
    },
  }),
})
