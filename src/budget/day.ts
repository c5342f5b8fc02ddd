/**
 * The day a call is charged to, `YYYY-MM-DD` in the bot's local time (the process's time zone, `TZ`):
 * Koishi has no time-zone setting, and a budget that resets at the owner's midnight is what they expect.
 */
export function budgetDay(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
}
