import type { NodeName, ReplyNode, ReplyState } from './state'

/**
 * Runs a reply over its nodes in order (route → recall → retrieve → generate → persist), merging
 * what each returns into the one state and tracing each: time, choice, tokens, tool calls. A node
 * that throws is traced with its error and the run goes on — recall and retrieve failing leave the
 * model less to read; generate failing leaves an apology to send.
 */
export async function runReply(initial: ReplyState, nodes: [NodeName, ReplyNode][], now = () => performance.now()): Promise<ReplyState> {
  let state: ReplyState = { ...initial, trace: [...initial.trace] }
  for (const [name, node] of nodes) {
    const started = now()
    try {
      const result = await node(state)
      state = { ...state, ...result.update }
      state.trace.push({
        node: name,
        ms: now() - started,
        chose: result.chose,
        tokensIn: result.tokensIn,
        tokensOut: result.tokensOut,
        toolCalls: result.toolCalls,
      })
    } catch (error) {
      const message = (error as Error)?.message ?? String(error)
      if (name === 'generate') state = { ...state, outcome: { kind: 'failed', error: message } }
      state.trace.push({ node: name, ms: now() - started, chose: { code: 'failed' }, error: message })
    }
  }
  return state
}
