/** The part of Koishi's logger the modules use (printf-style: `%s`, `%d`). */
export interface Logger {
  debug(format: unknown, ...args: unknown[]): void
  info(format: unknown, ...args: unknown[]): void
  warn(format: unknown, ...args: unknown[]): void
  error(format: unknown, ...args: unknown[]): void
}

/** Named counters shown by `memory.status`. */
export class Counters {
  private values = new Map<string, number>()
  inc(name: string, by = 1) {
    this.values.set(name, (this.values.get(name) ?? 0) + by)
  }
  get(name: string) {
    return this.values.get(name) ?? 0
  }
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.values)
  }
}
