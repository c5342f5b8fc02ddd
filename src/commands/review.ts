import type { Context, Session } from 'koishi'
import type { Config } from '../config'
import type { GroupRef, ReviewView } from '../group'
import { ReviewError } from '../group'
import { clip } from '../text/clip'
import { inGroup } from './group'

/** Proposals listed by `memory.review`. */
const SHOWN = 10
const MODES = ['auto', 'review'] as const

/** Who decides, as the queue and the change log record it. */
const actor = (session: Session) => `${session.platform}:${session.userId ?? ''}`

/** Runs a decision, turning a refusal of the queue into its locale text. */
async function explained(session: Session, run: () => Promise<string>): Promise<string> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof ReviewError)) throw error
    const params = [...error.params]
    if (error.problem === 'decided') params[1] = session.text(`commands.memory.review.messages.status-${params[1]}`)
    if (error.problem === 'changed') params[2] = clip(params[2] ?? '', 120)
    return session.text(`commands.memory.review.messages.${error.problem}`, params)
  }
}

/**
 * A decision on a proposal: in a group chat, on that group's proposals (or the group named by `-g`, with
 * the authority); in a private chat with no `-g`, on whichever group the proposal is of.
 */
function decide(ctx: Context, session: Session, named: string | undefined, authority: number, run: (group?: GroupRef) => Promise<string>) {
  if (!named && !session.guildId) return explained(session, () => run(undefined))
  return inGroup(ctx, session, named, authority, (group) => explained(session, () => run(group)))
}

function item(session: Session, review: ReviewView): string {
  const reason = review.reason || '-'
  if (review.action === 'create') return session.text('.item-create', [review.review_id, clip(review.statement, 200), reason])
  if (review.action === 'delete')
    return session.text('.item-delete', [review.review_id, review.memory_id, clip(review.old_statement, 200), reason])
  return session.text('.item-update', [
    review.review_id,
    review.memory_id,
    review.old_version,
    clip(review.old_statement, 200),
    clip(review.statement, 200),
    reason,
  ])
}

/** `memory.review` and its subcommands: the review queue of moderated group memory (authority `group.authority`). */
export function registerReviewCommands(ctx: Context, config: Config) {
  const authority = config.group.authority

  const review = ctx
    .command('memory.review', { authority })
    .userFields(['authority'])
    .option('group', '-g <group:string>')
    .action(async ({ session, options }) => {
      if (!session) return
      return inGroup(ctx, session, options!.group, authority, async (target) => {
        const queue = await ctx.memory.reviewQueue(target)
        if (!queue.reviews.length) return session.text(queue.mode === 'review' ? '.empty' : '.empty-auto')
        const lines = [session.text('.header', [queue.reviews.length, config.group.reviewExpiryHours])]
        lines.push(...queue.reviews.slice(0, SHOWN).map((row) => item(session, row)))
        if (queue.reviews.length > SHOWN) lines.push(session.text('.more', [queue.reviews.length - SHOWN]))
        lines.push(session.text(queue.mode === 'review' ? '.hint' : '.hint-auto'))
        return lines.join('\n')
      })
    })

  review
    .subcommand('.approve <id:string> [text:text]', { authority })
    .userFields(['authority'])
    .option('group', '-g <group:string>')
    .action(async ({ session, options }, id, text) => {
      if (!session) return
      if (!id) return session.text('.missing-id')
      return decide(ctx, session, options!.group, authority, async (group) => {
        const result = await ctx.memory.approveReview(id, { by: actor(session), statement: text?.trim() || undefined, group })
        const { review: row, change } = result
        const memory = change && 'new_id' in change ? change.new_id : (row.applied_memory_id ?? '')
        return session.text(`.done-${row.action}`, [row.review_id, memory, clip(row.applied_statement || row.old_statement, 200)])
      })
    })

  review
    .subcommand('.reject <id:string> [reason:text]', { authority })
    .userFields(['authority'])
    .option('group', '-g <group:string>')
    .action(async ({ session, options }, id, reason) => {
      if (!session) return
      if (!id) return session.text('.missing-id')
      return decide(ctx, session, options!.group, authority, async (group) => {
        const result = await ctx.memory.rejectReview(id, { by: actor(session), reason, group })
        return session.text('.done', [result.review.review_id])
      })
    })

  review
    .subcommand('.mode [mode:string]', { authority })
    .userFields(['authority'])
    .option('group', '-g <group:string>')
    .action(async ({ session, options }, mode) => {
      if (!session) return
      return inGroup(ctx, session, options!.group, authority, async (target) => {
        if (!mode) return session.text('.current', [session.text(`.mode-${await ctx.memory.reviewMode(target)}`)])
        const wanted = mode.trim().toLowerCase()
        if (!(MODES as readonly string[]).includes(wanted)) return session.text('.bad-mode')
        const set = await ctx.memory.setReviewMode(target, wanted as (typeof MODES)[number], { by: actor(session) })
        return session.text(`.set-${set}`)
      })
    })
}
