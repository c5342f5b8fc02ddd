import type { Readable } from 'node:stream'

/** Largest request body the API reads (a reason or a strength needs far less). */
export const BODY_LIMIT = 64 * 1024

/** A request that cannot be read: its HTTP status and a message for the client. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message)
  }
}

/** The part of a Node request stream the reader uses, and its connection. */
export type BodyStream = Pick<Readable, 'on' | 'off' | 'pause'> & { socket?: { readonly errored?: Error | null } | null }

export interface BodyHeaders {
  contentType?: string
  contentLength?: string
}

const tooLarge = (limit: number) => new HttpError(`the body is over ${Math.round(limit / 1024)} KB`, 413)

/**
 * The bytes of a body, at most `limit`. Past the limit reading stops (the stream is paused, not
 * destroyed: destroying a request closes its socket before the 413 can be sent).
 */
function collect(stream: BodyStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer | string) => {
      const part = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += part.length
      if (size <= limit) return void parts.push(part)
      stream.pause()
      settle(tooLarge(limit))
    }
    const onEnd = () => settle()
    const onError = (error: Error) => settle(new HttpError(`the body could not be read: ${error.message}`, 400))
    const settle = (error?: Error) => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      if (error) reject(error)
      else resolve(Buffer.concat(parts))
    }
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
  })
}

/**
 * Throws when Node's HTTP parser refused what came on the connection right after the request. A client
 * that writes a DELETE body with neither Content-Length nor Transfer-Encoding (Node's own client, told
 * nothing) sends a request without a body followed by bytes that are no request: Node answers those with
 * its own 400 and closes, and a route that went on would act on a request whose body it never saw.
 */
function refusedByParser(stream: BodyStream): void {
  const error = stream.socket?.errored
  if (error)
    throw new HttpError(
      `the connection carried malformed HTTP (${(error as NodeJS.ErrnoException).code ?? error.message}); a body needs a Content-Length or Transfer-Encoding: chunked`,
      400,
    )
}

/**
 * A request body read by hand, for every method (DELETE too): a form when it says so
 * (`application/x-www-form-urlencoded`, as `curl -d` sends), else JSON; `undefined` when empty.
 * Over `limit` → 413 (a declared length before anything is read); unreadable → 400.
 */
export async function readBody(stream: BodyStream, headers: BodyHeaders, limit = BODY_LIMIT): Promise<unknown> {
  if (Number(headers.contentLength) > limit) throw tooLarge(limit)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await collect(stream, limit))
  } catch (error) {
    if (error instanceof HttpError) throw error
    throw new HttpError('the body is not UTF-8', 400)
  }
  refusedByParser(stream)
  if (!text.trim()) return undefined
  if (/^application\/x-www-form-urlencoded\b/i.test(headers.contentType ?? '')) return Object.fromEntries(new URLSearchParams(text))
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError('the body must be JSON (or a form)', 400)
  }
}
