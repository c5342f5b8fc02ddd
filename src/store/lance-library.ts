import { availableParallelism } from 'node:os'
import type * as LanceDB from '@lancedb/lancedb'
import type * as ArrowLib from 'apache-arrow'
import { errorLine } from './lance-errors'

interface Lib {
  lancedb: typeof LanceDB
  arrow: typeof ArrowLib
}

let lib: Lib | undefined

/**
 * LanceDB and Apache Arrow are loaded with CommonJS `require`, together, so the Arrow classes the index
 * builds tables with are the very objects LanceDB checks against (ARCHITECTURE decision 7).
 * Loading lazily turns a missing native binary into an index outage instead of a plugin crash.
 */
export function loadLib(): Lib {
  if (!lib) {
    const threads = lanceCpuThreads(process.env.LANCE_CPU_THREADS, availableParallelism())
    if (threads) process.env.LANCE_CPU_THREADS = threads
    /* eslint-disable @typescript-eslint/no-require-imports */
    lib = {
      lancedb: require('@lancedb/lancedb') as typeof LanceDB,
      arrow: require('apache-arrow') as typeof ArrowLib,
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
  }
  return lib
}

/**
 * The size of LanceDB's CPU pool to set before it starts, when the owner set none: on a machine of two
 * cores or fewer LanceDB keeps one thread for it, and building a full-text index with the ngram
 * tokenizer then waits forever once the index outgrows one batch (lancedb/lancedb#3568; here the
 * optimize after about 100,000 new rows never returned). Two threads are enough.
 */
export function lanceCpuThreads(configured: string | undefined, cores: number): string | undefined {
  if (configured?.trim()) return undefined
  return cores <= 2 ? '2' : undefined
}

/** Why LanceDB cannot load on this machine (no native build for it, a binary that does not link), or undefined when it loads. */
export function lanceLoadFailure(): string | undefined {
  try {
    loadLib()
    return undefined
  } catch (error) {
    return errorLine(error)
  }
}
