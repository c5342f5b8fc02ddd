/** Largest `$in` list sent in one database query. */
export const ID_CHUNK = 500

/**
 * Most bytes of string values in one `$in` list. The embedded SQLite parses a statement on a 64 KB
 * stack and writes the values of a filter into its text; a slice stays well under it (quotes doubled).
 */
export const ID_CHUNK_BYTES = 16_384

/** `items` in slices of at most `size`, for `$in` queries; strings also within `ID_CHUNK_BYTES` a slice. */
export function chunks<T>(items: T[], size = ID_CHUNK): T[][] {
  const out: T[][] = []
  let part: T[] = []
  let bytes = 0
  for (const item of items) {
    const weight = typeof item === 'string' ? Buffer.byteLength(item, 'utf8') + 4 : 0
    if (part.length && (part.length >= size || bytes + weight > ID_CHUNK_BYTES)) {
      out.push(part)
      part = []
      bytes = 0
    }
    part.push(item)
    bytes += weight
  }
  if (part.length) out.push(part)
  return out
}
