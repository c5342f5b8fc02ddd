const words = new Intl.Segmenter('und', { granularity: 'word' })

/**
 * `text` cut to at most `max` characters at a word boundary (Chinese by the segmenter's words, other
 * scripts at spaces), with `…` when anything was cut. A single word longer than `max` is cut inside.
 */
export function clip(text: string, max: number): string {
  const chars = [...text]
  if (chars.length <= max) return text
  if (max < 1) return ''
  let kept = ''
  let length = 0
  for (const { segment } of words.segment(text)) {
    const size = [...segment].length
    if (length + size > max - 1) break
    kept += segment
    length += size
  }
  kept = kept.trimEnd()
  return `${kept || chars.slice(0, max - 1).join('')}…`
}
