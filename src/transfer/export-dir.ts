import { join, resolve } from 'node:path'

/** Where `memory.export` writes its files, under Koishi's data folder (a forget looks there too). */
export function exportDir(baseDir: string | undefined): string {
  return join(resolve(baseDir ?? process.cwd()), 'data', 'memory', 'exports')
}
