import type { Context, Session } from 'koishi'
import type { Config } from '../config'
import type { TraceStepRecord } from '../context'

type Choice = TraceStepRecord['chose']

const ms = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)))

/** A node's choice in the reader's language (codes: `Choice` in src/reply/state.ts). */
function describe(session: Session, node: string, choice: Choice): string {
  const t = (path: string, params: unknown = {}) => session.text(`commands.memory.trace.messages.${path}`, params as object)
  const p = choice.params ?? {}
  const list = (prefix: string, values: unknown) =>
    String(values ?? '')
      .split(',')
      .filter(Boolean)
      .map((value) => t(`${prefix}-${value}`))
      .join(t('separator'))
  const counted = (keys: string[]) =>
    keys
      .filter((key) => Number(p[key]))
      .map((key) => t(`count-${key}`, [p[key]]))
      .join(t('separator'))
  switch (`${node}/${choice.code}`) {
    case 'route/no-memory':
      return t('route-no-memory', { why: list('why', p.why) })
    case 'route/memory':
      return t('route-memory', { kinds: list('kind', p.kinds), deep: t(`deep-${p.deep}`), why: list('why', p.why) || t('why-content') })
    case 'recall/found':
      return counted(['messages', 'memories', 'group', 'episodes', 'summary', 'profile', 'fallback'])
    case 'retrieve/skipped':
      return t('retrieve-skipped', { deep: t(`deep-${p.deep}`) })
    case 'retrieve/found':
      return t('retrieve-found', { what: counted(['memories', 'history']) })
    case 'persist/sent':
      return t(`persist-sent-${p.what}`, p)
    default:
      return t(`${node}-${choice.code}`, p)
  }
}

/** `memory.trace [messageId]`: how the built-in chat made its last reply here, step by step. */
export function registerTraceCommand(ctx: Context, config: Config) {
  ctx.command('memory.trace [messageId:string]', { authority: config.authority.stats }).action(async ({ session }, messageId) => {
    if (!session?.channelId) return
    const trace = await ctx.memory.lastTrace({ platform: session.platform, channelId: session.channelId }, messageId)
    if (!trace) return session.text('.none')
    const lines = [
      session.text('.head', {
        message: trace.triggerMessageId || '?',
        outcome: session.text(`.outcome-${trace.outcome}`),
        ms: ms(trace.totalMs),
        prompt: trace.promptTokens,
        reply: trace.replyTokens,
        tools: trace.toolCalls,
      }),
    ]
    trace.steps.forEach((step, i) => {
      const tokens = step.tokensIn || step.tokensOut ? session.text('.tokens', { in: step.tokensIn ?? 0, out: step.tokensOut ?? 0 }) : ''
      lines.push(
        session.text('.step', { n: i + 1, node: step.node, ms: ms(step.ms), chose: describe(session, step.node, step.chose) }) + tokens,
      )
      for (const call of step.toolCalls ?? [])
        lines.push(
          session.text('.tool', { name: call.name, args: JSON.stringify(call.arguments), ms: ms(call.ms), tokens: call.resultTokens }),
        )
      if (step.error) lines.push(session.text('.error', [step.error]))
    })
    return lines.join('\n')
  })
}
