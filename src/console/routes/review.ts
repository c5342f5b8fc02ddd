import type { Context } from 'koishi'
import type { ReviewView } from '../../group'
import type { Authorities, PendingView } from '../types'
import type { Routes } from './route'
import { callerName, ConsoleError, groupArg, id, optionalText, route, TEXT_MAX } from './route'

/** A proposal of the review queue as the page shows it. */
function pendingView(review: ReviewView): PendingView {
  return {
    id: review.review_id,
    action: review.action,
    statement: review.statement,
    oldStatement: review.old_statement,
    reason: review.reason,
    status: review.status,
    createdAt: Date.parse(review.created_at),
    expiresAt: Date.parse(review.expires_at),
  }
}

/** Moderation: a group's mode and its review queue, with the group part's authority. */
export function reviewRoutes(ctx: Context, authority: Authorities): Routes {
  const memory = () => ctx.memory
  return {
    'memory/review/mode': route(authority.groups, async (caller, [group, mode]) => {
      const target = groupArg(group)
      if (mode !== undefined && mode !== null) {
        if (mode !== 'auto' && mode !== 'review') throw new ConsoleError('bad-request', 'mode is auto or review')
        await memory().setReviewMode(target, mode, { by: callerName(caller) })
      }
      return memory().reviewMode(target)
    }),

    'memory/review/queue': route(authority.groups, async (_caller, [group]) =>
      (await memory().reviewQueue(groupArg(group))).reviews.map(pendingView),
    ),

    // a decision names its group: the proposal must be that group's
    'memory/review/approve': route(authority.groups, async (caller, [group, opId, statement]) =>
      pendingView(
        (
          await memory().approveReview(id(opId, 'id'), {
            by: callerName(caller),
            group: groupArg(group),
            ...(optionalText(statement, 'statement', TEXT_MAX) !== undefined && { statement: statement as string }),
          })
        ).review,
      ),
    ),

    'memory/review/reject': route(authority.groups, async (caller, [group, opId, reason]) =>
      pendingView(
        (
          await memory().rejectReview(id(opId, 'id'), {
            by: callerName(caller),
            group: groupArg(group),
            ...(optionalText(reason, 'reason', TEXT_MAX) !== undefined && { reason: reason as string }),
          })
        ).review,
      ),
    ),
  }
}
