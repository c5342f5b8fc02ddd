import type { Context, Session } from 'koishi'

/**
 * The memory's context for a ChatLuna conversation. ChatLuna (1.3) hands every plugin the prompt
 * variables of a request on its `chatluna/before-chat` event, before the prompt is assembled; its
 * prompt pipeline then renders the document sets found in the variables `long_memory`, `knowledge`
 * and `documents` with the preset's `longMemoryPrompt` (the `long_history` stage), and the preset's
 * own text may place any variable as `{name}`. The memory adds its blocks as one more set in
 * `documents` (the generic slot, so ChatLuna's own long-memory plugin keeps `long_memory`), and sets
 * the variable `memory` to the same text for presets that place it themselves — those get no
 * documents, so nothing is said twice.
 */

/** A LangChain `Document` as ChatLuna's long-history stage reads it. */
export interface MemoryDocument {
  pageContent: string
  metadata: Record<string, unknown>
  id: string
}

/**
 * The memory's blocks for the message a session carries: long-term memories, the user's profile,
 * the group's memories, the conversation summary, earlier exchanges and the relevant chat, each a
 * headed text in the language of the message (`ctx.memory.assemblePrompt`, transcript style; the
 * current message is ChatLuna's to send, so it is left out).
 */
export async function memoryBlocks(memory: Pick<Context['memory'], 'assemblePrompt'>, session: Session): Promise<string[]> {
  const messages = await memory.assemblePrompt(session, { style: 'transcript' })
  return messages
    .slice(0, -1)
    .filter((message) => message.role === 'system' && message.content.trim())
    .map((message) => message.content)
}

export function toDocuments(blocks: string[]): MemoryDocument[] {
  return blocks.map((content, index) => ({ pageContent: content, metadata: { source: 'memory' }, id: `memory-${index + 1}` }))
}

/** Appends one document set to the variables' `documents`, keeping what other plugins put there (a set, or a list of sets). */
export function addDocumentSet(variables: Record<string, unknown>, documents: MemoryDocument[]) {
  const existing = variables.documents
  const sets = Array.isArray(existing) ? (existing.length && !Array.isArray(existing[0]) ? [existing] : existing) : []
  variables.documents = [...sets, documents]
}

/** True when a preset's text places `{memory}` itself. */
export function presetPlacesMemory(rawText: unknown): boolean {
  return typeof rawText === 'string' && /\{\s*memory\s*\}/.test(rawText)
}
