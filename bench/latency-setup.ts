/** What `bench/latency.ts` and the cache runs it starts share: the same users, queries and top k. */
export const USERS = 200
export const WARMUP = 20
export const LIMIT = 10
