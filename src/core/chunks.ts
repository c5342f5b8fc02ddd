/** Largest `$in` list sent in one database query. */
export const ID_CHUNK = 500

/** `items` in slices of at most `size`, for `$in` queries. */
export function chunks<T>(items: T[], size = ID_CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
