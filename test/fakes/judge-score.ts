import type { MemoryJudge, Turn } from '../../src/facts/judge'

/** One labelled line: what someone said, and whether it states a fact worth keeping. */
export interface ScoredLine {
  text: string
  fact: boolean
  kind?: string
}

export interface JudgeScore {
  lines: number
  /** Fact lines that yielded a fact / fact lines. */
  recall: number
  /** Noise lines that yielded none / noise lines. */
  rejection: number
  /** Fact lines among the lines that yielded a fact. */
  precision: number
  missed: string[]
  wronglyKept: string[]
}

/**
 * How a judge does on labelled lines: each line is one user turn said at `now` by `name` ("kept": the
 * line yields at least one fact), followed by the bot's `answer` when one is given.
 */
export async function scoreJudge(
  judge: MemoryJudge,
  lines: readonly ScoredLine[],
  options: { name: string; now: Date; answer?: string },
): Promise<JudgeScore> {
  let keptFacts = 0
  let keptNoise = 0
  const missed: string[] = []
  const wronglyKept: string[] = []
  for (const line of lines) {
    const turns: Turn[] = [{ role: 'user', name: options.name, content: line.text, time: options.now }]
    if (options.answer) turns.push({ role: 'assistant', name: 'bot', content: options.answer })
    const { facts } = await judge.extract(turns, { now: options.now })
    const kept = facts.length > 0
    const label = line.kind ? `${line.kind}: ${line.text}` : line.text
    if (line.fact && kept) keptFacts++
    if (line.fact && !kept) missed.push(label)
    if (!line.fact && kept) {
      keptNoise++
      wronglyKept.push(`${label} → ${facts.map((f) => f.statement).join(' | ')}`)
    }
  }
  const facts = lines.filter((line) => line.fact).length
  const noise = lines.length - facts
  return {
    lines: lines.length,
    recall: keptFacts / facts,
    rejection: 1 - keptNoise / noise,
    precision: keptFacts / Math.max(1, keptFacts + keptNoise),
    missed,
    wronglyKept,
  }
}

/** Prints a score and its misses (the measure tests' output). */
export function reportScore(label: string, result: JudgeScore) {
  console.log(
    `${label}: ${result.lines} lines, recall ${result.recall.toFixed(3)}, rejection ${result.rejection.toFixed(3)}, precision ${result.precision.toFixed(3)}\n` +
      `  missed: ${JSON.stringify(result.missed)}\n  wrongly kept: ${JSON.stringify(result.wronglyKept)}`,
  )
}
