/** What `bench/latency.ts` and the cache runs it starts share: the same users, queries and top k. */
export const USERS = 200
export const WARMUP = 20
export const LIMIT = 10

export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}
