import type { Session } from 'koishi'
import type { WaitingReport } from '../capture'

/** Whole minutes until `dueAt`, at least one: the quiet-time check runs a few times per quiet period, so "within" is rounded up. */
export function minutesUntil(dueAt: Date, now = Date.now()): number {
  return Math.max(1, Math.ceil((dueAt.getTime() - now) / 60_000))
}

/** What waits to be memorised for the user, in a line of the list's (empty when nothing waits). */
export function waitingText(session: Session, waiting: WaitingReport, canFlush: boolean): string {
  const lines: string[] = []
  if (waiting.messages) {
    if (!waiting.dueAt) lines.push(session.text('commands.memory.list.messages.waiting-count', [waiting.messages]))
    else {
      const minutes = minutesUntil(waiting.dueAt)
      lines.push(
        minutes === 1
          ? session.text('commands.memory.list.messages.waiting-minute', [waiting.messages])
          : session.text('commands.memory.list.messages.waiting-minutes', [waiting.messages, minutes]),
      )
    }
  } else if (waiting.memorising) {
    lines.push(session.text('commands.memory.list.messages.memorising'))
  }
  if (lines.length && canFlush) lines.push(session.text('commands.memory.list.messages.flush-hint'))
  return lines.join('\n')
}
