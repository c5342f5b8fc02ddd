/** Thrown when the index cannot be used right now: the breaker is open, or the store is closed. */
export class IndexUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'IndexUnavailableError'
  }
}

/** The first line of an error's message, at most 300 characters, for a log line or a wrapping error. */
export function errorLine(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0].slice(0, 300) : String(error)
}
