/** Sentences of a message: split after sentence-ending punctuation and at line breaks. */
export function splitSentences(text: string): string[] {
  return (text.match(/[^。！？!?.\n]+(?:[。！？!?.]+|\n|$)/g) ?? [])
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0)
}
