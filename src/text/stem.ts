const VOWEL = /[aeiouy]/

/**
 * A light English stemmer: plural and verb endings (-s, -es, -ies, -ing, -ed), doubled final
 * consonants after -ing/-ed, and a final silent e, so inflections of one word share a stem
 * ("parties" / "party", "running" / "run", "loved" / "loving" / "love"). It never produces a stem
 * shorter than three letters and leaves non-Latin words alone. Not a linguistic stemmer: it only has
 * to map a word and its inflections to the same key.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word
  let w = word
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1)

  let stripped = false
  if (w.endsWith('ied') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('ing') && w.length - 3 >= 3 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3)
    stripped = true
  } else if (w.endsWith('ed') && w.length - 2 >= 3 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2)
    stripped = true
  }
  if (stripped && w.length > 3 && w[w.length - 1] === w[w.length - 2] && !/[lsz]/.test(w[w.length - 1])) w = w.slice(0, -1)
  if (w.endsWith('y') && w.length > 3) w = w.slice(0, -1) + 'i'
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1)
  return w
}
