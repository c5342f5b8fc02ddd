import { ProviderError } from './types'

/** Error codes of a connection that broke or could not be made for a passing reason. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** True for a network failure worth retrying (a reset connection, a DNS hiccup), looking through `cause`. */
export function isTransientNetworkError(error: unknown): boolean {
  let e: unknown = error
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown }
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) return true
    e = cause
  }
  return false
}

/** Removes every occurrence of a secret from a text, and shortens it for logs. */
export function scrub(text: string, secrets: (string | undefined)[], max = 300): string {
  let out = text
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('***')
  out = out.replace(/\s+/g, ' ').trim()
  return out.length > max ? `${out.slice(0, max)}…` : out
}

/** Builds a `ProviderError`; without an HTTP status, transient network failures are still retryable. */
export function providerError(provider: string, message: string, status: number | undefined, cause: unknown): ProviderError {
  const retryable = status !== undefined ? status === 429 || status >= 500 : isTransientNetworkError(cause)
  const error = new ProviderError(message, provider, status, retryable)
  ;(error as { cause?: unknown }).cause = cause
  return error
}
