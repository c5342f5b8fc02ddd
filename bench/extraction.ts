/**
 * What the offline judge keeps of single chat lines, on a labelled set written for it
 * (test/fixtures/extraction.jsonl: Chinese and English, private chat with a bot and group chat between
 * friends, a third held out). Each line goes through the real RuleJudge (with the line before it in a
 * group chat) and is scored per split and overall:
 *   - `precision` / `recall`: lines that yield a fact against lines a careful reader would keep;
 *   - `event_kept`: dated life events kept with the right absolute date;
 *   - `subject_correct`: kept lines whose fact names the right person (the speaker, or whom it is about);
 *   - `garbled`: stored facts whose third-person form is garbled (bench/lib/extraction.ts `garbledBy`),
 *     plus kept lines whose fact lost the labelled words (`words_lost`); must be 0;
 *   - `questions_stored`: lines that ask, request, suppose or refuse and still yielded a fact; must be 0.
 *
 *   npm run bench:extraction -- [--data FILE] [--out FILE] [--verbose]
 */
import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { RuleJudge } from '../src/facts'
import { log, revision, runInfo, writeResult } from './lib/app'
import { parseArgs } from './lib/args'
import type { LabelledLine, LineResult } from './lib/extraction'
import { dialogueOf, garbledBy, localTime, namesSubject, NOT_MEMORY_KINDS, scoreLines, writesDate } from './lib/extraction'

const ROOT = path.resolve(__dirname, '..')

/** What is wrong with one line's result, for the dev split's report. */
function failure(r: LineResult): string | undefined {
  const { line, facts } = r
  const tag = `${line.id} ${line.text} → ${JSON.stringify(facts)}`
  if (line.expect === 'none') return facts.length ? `kept: ${tag}` : undefined
  if (!facts.length) return `missed: ${tag}`
  const garbled = facts.map((fact) => garbledBy(fact, line.speaker)).find(Boolean)
  if (garbled) return `garbled (${garbled}): ${tag}`
  if (line.keep && !facts.some((fact) => fact.includes(line.keep!))) return `words lost (${line.keep}): ${tag}`
  if (!namesSubject(r)) return `subject (${line.about ?? line.speaker}): ${tag}`
  if (line.date && !facts.some((fact) => writesDate(fact, line.date!, line.lang))) return `date (${line.date}): ${tag}`
  return undefined
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const file = path.resolve(options.data ?? path.join(ROOT, 'test/fixtures/extraction.jsonl'))
  const started = new Date()
  const lines: LabelledLine[] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((row) => row.trim())
    .map((row) => JSON.parse(row) as LabelledLine)
  const judge = new RuleJudge()
  const results: LineResult[] = []
  for (const line of lines) {
    const dialogue = dialogueOf(line)
    const last = dialogue.length - 1
    const { facts } = await judge.extract(dialogue, { now: localTime(line.time) })
    results.push({ line, facts: facts.filter((fact) => fact.turns?.includes(last)).map((fact) => fact.statement) })
  }
  const of = (keep: (r: LineResult) => boolean) => scoreLines(results.filter(keep))
  const dev = results.filter((r) => r.line.split === 'dev')
  const failures = dev.map(failure).filter((f): f is string => Boolean(f))
  log(`${lines.length} lines, ${failures.length} dev failures`)
  if (options.verbose !== undefined) for (const f of failures) log(f)
  writeResult(
    {
      bench: 'extraction',
      judge: judge.id,
      overall: of(() => true),
      dev: of((r) => r.line.split === 'dev'),
      heldout: of((r) => r.line.split === 'heldout'),
      by_language: { zh: of((r) => r.line.lang === 'zh'), en: of((r) => r.line.lang === 'en') },
      not_memory_lines: results.filter((r) => NOT_MEMORY_KINDS.has(r.line.kind)).length,
      dev_failures: failures,
      notes: {
        garbled:
          'mechanical: an adverb conjugated (completelies), the first person left outside quotes or a "said:" form, a date glued to a possessive, a name with a first-person verb, a doubled name; plus kept lines whose fact lost the labelled words',
        heldout: 'a third of the lines (every third of each language), never tuned on; their failures are not listed',
      },
      ...runInfo(file, started, revision(ROOT)),
    },
    options.out,
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
