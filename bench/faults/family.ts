/**
 * What a fault family reports: how many trials it tried and how many passed, and what went wrong
 * across them — data the plugin promised to keep and lost, data shown to someone it does not belong
 * to, operations a model made on rows it was not shown, and rows stored twice.
 */
export interface FamilyResult {
  tried: number
  passed: number
  lost: number
  leaks: number
  foreign_ops: number
  duplicates: number
  /** One line per failed trial: what was expected and what happened. */
  failures: string[]
}

export type Harm = Partial<Pick<FamilyResult, 'lost' | 'leaks' | 'foreign_ops' | 'duplicates'>>

/** Counts the trials of one family. */
export class Tally {
  readonly result: FamilyResult = { tried: 0, passed: 0, lost: 0, leaks: 0, foreign_ops: 0, duplicates: 0, failures: [] }

  /** One trial: passed when `ok` and nothing was harmed. */
  trial(name: string, ok: boolean, harm: Harm = {}, detail = ''): void {
    const r = this.result
    r.tried += 1
    r.lost += harm.lost ?? 0
    r.leaks += harm.leaks ?? 0
    r.foreign_ops += harm.foreign_ops ?? 0
    r.duplicates += harm.duplicates ?? 0
    const harmed = Object.values(harm).some((n) => (n ?? 0) > 0)
    if (ok && !harmed) r.passed += 1
    else r.failures.push(`${name}${detail ? `: ${detail}` : ''}${harmed ? ` (${JSON.stringify(harm)})` : ''}`)
  }

  /** Runs `check` as one trial; a throw fails it with the error. */
  async run(name: string, check: () => Promise<{ ok: boolean; harm?: Harm; detail?: string }>): Promise<void> {
    try {
      const { ok, harm, detail } = await check()
      this.trial(name, ok, harm, detail)
    } catch (error) {
      this.trial(name, false, {}, `threw ${(error as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? error}`)
    }
  }
}

export interface FamilyOptions {
  /** Small sizes and few rounds: every family in a few minutes, for CI. */
  short?: boolean
}

export type Family = (options?: FamilyOptions) => Promise<FamilyResult>
