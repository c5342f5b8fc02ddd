import type { NodeResult, ReplyOutcome, ReplyState } from './state'

/**
 * The persist node (design §7.6): the reply is sent. Sending is what records it —
 * capture stores the bot's message, indexes the exchange as an episode, attaches the reply to the
 * context log and schedules the post-dialogue memorising — so nothing is written twice here.
 */
export interface PersistPorts {
  /** Renders the outcome in the user's language and sends it; returns the platform's message ids. */
  deliver(outcome: ReplyOutcome, state: Readonly<ReplyState>): Promise<string[]>
}

export function persistNode(ports: PersistPorts) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    const outcome = state.outcome
    if (!outcome) return { update: {}, chose: { code: 'nothing' } }
    const sent = await ports.deliver(outcome, state)
    const characters = outcome.kind === 'model' ? outcome.text.length : 0
    return { update: { sent }, chose: { code: 'sent', params: { what: outcome.kind, characters } } }
  }
}
