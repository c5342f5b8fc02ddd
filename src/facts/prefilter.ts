import type { TurnKind } from '../text/chat-noise'
import { classifyTurn } from '../text/chat-noise'
import type { Turn } from './judge'

/** Why a dialogue was not worth asking the judge about. */
export type PrefilterReason = 'empty' | 'emoji' | 'command' | 'ack'

export type PrefilterResult = { pass: true } | { pass: false; reason: PrefilterReason }

/**
 * Cheap rule check before any judge call: does the user side of the dialogue say anything at all?
 * It fails when every user turn is empty, only emoji, punctuation or media placeholders, a command
 * (starts with one of `commandPrefixes`, or names this plugin's `memory.*` commands) or a short
 * acknowledgement (好的 / 嗯 / 哈哈哈 / ok / thanks / 666…). One user turn with content lets it pass.
 * Assistant turns are ignored. When several kinds of noise are mixed, the reason is the weightiest
 * one present: command, then ack, then emoji, then empty.
 */
export function prefilter(conversation: Turn[], commandPrefixes: string[]): PrefilterResult {
  const prefixes = commandPrefixes.map((p) => p.normalize('NFKC')).filter((p) => p.length > 0)
  const kinds = new Set<TurnKind>()
  for (const turn of conversation) {
    if (turn.role !== 'user') continue
    const kind = classifyTurn(turn.content ?? '', prefixes)
    if (kind === 'content') return { pass: true }
    kinds.add(kind)
  }
  for (const reason of ['command', 'ack', 'emoji'] as const) if (kinds.has(reason)) return { pass: false, reason }
  return { pass: false, reason: 'empty' }
}
