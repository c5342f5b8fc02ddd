import { DEFAULT_WEIGHTS, ScorerWeights, SIGNALS, SignalName } from './scorer'
import type { BuiltContext, ContextMessage } from './types'

/**
 * Why each message is in a context, as plain lines for logs and a debug command:
 * `0.62 Bob: the build is red… ← reply-chain, time-window | replyChain 1.00×0.4, timeDecay 0.98×0.2`.
 * Signals are listed by their contribution (value × weight), largest first; zero ones are left out.
 */
export function explainMessage(message: ContextMessage, weights: Readonly<ScorerWeights> = DEFAULT_WEIGHTS, maxChars = 60): string {
  const text = message.content.length > maxChars ? `${message.content.slice(0, maxChars)}…` : message.content
  const parts = SIGNALS
    .map((name: SignalName) => ({ name, value: message.signals[name] ?? 0, weight: weights[name] }))
    .filter((part) => part.value > 0 && part.weight > 0)
    .sort((a, b) => b.value * b.weight - a.value * a.weight)
    .map((part) => `${part.name} ${part.value.toFixed(2)}×${part.weight}`)
  if (message.signals.adjacent) parts.push(`adjacent ${message.signals.adjacent.toFixed(2)}`)
  return `${message.score.toFixed(2)} ${message.userName}: ${text} ← ${message.sources.join(', ')}${parts.length ? ` | ${parts.join(', ')}` : ''}`
}

/** A header line (sizes, time, fallback) and one line per chosen message, oldest first. */
export function explainContext(context: BuiltContext, weights: Readonly<ScorerWeights> = DEFAULT_WEIGHTS): string[] {
  const header = `${context.messages.length} messages, ${context.tokens} tokens (window ${context.windowTokens}), `
    + `${context.longTerm.length} memories, summary ${context.summary ? 'yes' : 'no'}, ${Math.round(context.buildMs)} ms`
    + (context.fallback ? ', FALLBACK to the recent window' : '')
  return [header, ...context.messages.map((message) => explainMessage(message, weights))]
}
