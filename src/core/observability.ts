export interface Logger {
  debug(format: any, ...args: any[]): void
  info(format: any, ...args: any[]): void
  warn(format: any, ...args: any[]): void
  error(format: any, ...args: any[]): void
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
