/** A name as merging compares it: width and case folded, spaces and punctuation dropped. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, '')
}

/** A name as stored: trimmed, inner spaces collapsed, punctuation at the ends dropped. */
export function cleanName(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '')
}

/** Two confidences of the same statement, combined as independent evidence (never reaching 1). */
export function combine(a: number, b: number): number {
  return Math.min(0.99, 1 - (1 - a) * (1 - b))
}
