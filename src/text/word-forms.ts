import nlp from 'compromise'
import { stem } from './stem'

/**
 * Irregular English word forms folded to their base form (went → go, bought → buy, children → child),
 * from compromise: the exceptions of its conjugation and plural models, and the conjugations of the
 * verbs of its lexicon. Only forms `stem` cannot fold are kept ("lived" already meets "live" there),
 * and never a form that is a verb of its own or a regular ending on its base ("feed" is not "fee").
 */

/** The parts of compromise's model and methods read here. */
interface Compromise {
  model: {
    one: { lexicon: Record<string, string | string[]> }
    two: { models: Record<string, { ex: Record<string, string> }>; irregularPlurals: Record<string, string> }
  }
  conjugate: (infinitive: string, model: unknown) => Record<string, string | undefined>
}

const PLAIN = /^[a-z]+$/
let irregular: Map<string, string> | undefined

function library(): Compromise {
  const methods = nlp.methods() as { two: { transform: { verb: { conjugate: Compromise['conjugate'] } } } }
  return { model: nlp.model() as Compromise['model'], conjugate: methods.two.transform.verb.conjugate }
}

/** Built on first use: reading compromise's lexicon takes a tenth of a second. */
function table(): Map<string, string> {
  if (irregular) return irregular
  const { model, conjugate } = library()
  const verbs = new Set(
    Object.entries(model.one.lexicon)
      .filter(([word, tags]) => PLAIN.test(word) && ([] as string[]).concat(tags).includes('Infinitive'))
      .map(([word]) => word),
  )
  const pairs: [string, string][] = []
  for (const verb of verbs) {
    const forms = conjugate(verb, model)
    for (const kind of ['PastTense', 'Participle', 'Gerund', 'PresentTense']) if (forms[kind]) pairs.push([forms[kind]!, verb])
  }
  // the models' own exceptions win over conjugations (flown is fly's, not flow's)
  for (const name of ['fromPresent', 'fromGerund', 'fromPast', 'fromParticiple'])
    pairs.push(...Object.entries(model.two.models[name]?.ex ?? {}))
  for (const [singular, plural] of Object.entries(model.two.irregularPlurals)) pairs.push([plural, singular])
  irregular = new Map()
  for (const [form, base] of pairs) {
    if (!PLAIN.test(form) || !PLAIN.test(base) || verbs.has(form) || stem(form) === stem(base) || regular(form, base)) continue
    irregular.set(form, base)
  }
  return irregular
}

/** A regular ending on the base (feed = fee + d): not an irregular form, whatever a table says. */
function regular(form: string, base: string): boolean {
  return form.startsWith(base) && ['s', 'es', 'd', 'ed', 'ing'].includes(form.slice(base.length))
}

/** The base form of an irregular English word form, or the word itself. */
export function baseForm(word: string): string {
  return table().get(word) ?? word
}
