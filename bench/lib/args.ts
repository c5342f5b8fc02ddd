/**
 * Command-line options of the benchmarks: `--name value` or `--name=value`. Unknown names are kept,
 * so a bench can read its own extras; a flag with no value is `'true'`.
 */
export function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (!token.startsWith('--')) continue
    const eq = token.indexOf('=')
    if (eq > 2) {
      out[token.slice(2, eq)] = token.slice(eq + 1)
    } else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) {
      out[token.slice(2)] = argv[++i]
    } else {
      out[token.slice(2)] = 'true'
    }
  }
  return out
}

/** A positive integer option, or the fallback. */
export function intOption(options: Record<string, string>, name: string, fallback: number): number {
  const raw = options[name]
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got ${raw}`)
  return value
}
