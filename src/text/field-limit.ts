/**
 * The longest free-text field the memory stores, in UTF-8 bytes, whatever the database: a captured
 * message, a fact, a statement, a summary, a profile. Two stores set it. MariaDB's `text` column holds
 * 65,535 bytes. SQLite through minato's sql.js build parses each statement on a 64 KB WebAssembly stack,
 * and a value in a `WHERE` (a fact looked up by its words) is written into the statement, its quotes
 * doubled: a longer statement overruns that stack and leaves the database answering "memory access out
 * of bounds" until a restart. Twice this limit, with the rest of the statement, stays well inside it.
 */
export const FIELD_MAX_BYTES = 16_384

/**
 * The most a value kept as JSON (a list of ids, keywords, a vector) may take once encoded: the width of
 * a `json` column on MariaDB (`text`). Such values are never written into a statement's `WHERE`.
 */
export const JSON_FIELD_MAX_BYTES = 65_535

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

// a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4)
export const fitsField = (text: string): boolean => text.length * 3 <= FIELD_MAX_BYTES || utf8Bytes(text) <= FIELD_MAX_BYTES

/** `text` cut to at most `FIELD_MAX_BYTES` UTF-8 bytes, never inside a character. */
export function clipToField(text: string): string {
  if (fitsField(text)) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    const size = utf8Bytes(char)
    if (bytes + size > FIELD_MAX_BYTES) break
    bytes += size
    end += char.length
  }
  return text.slice(0, end)
}
