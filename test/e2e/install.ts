// The install the READMEs describe, run as written: the commands between the `install` markers of
// README.md, with `<repository>` and `<koishi-app>` filled in, in a shell, from a fresh clone of the
// repository's committed HEAD (not the working tree).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunOptions } from './app'
import { run } from './app'

const BEGIN = /<!-- install:[^>]*-->\s*```sh\n/
const END = /```\s*<!-- \/install -->/

/** The shell commands of a README's install block, one a line, comments and blank lines left out. */
export function installCommands(readme: string): string[] {
  const begin = BEGIN.exec(readme)
  if (!begin) throw new Error('the README has no install block (<!-- install: … --> then ```sh)')
  const rest = readme.slice(begin.index + begin[0].length)
  const end = END.exec(rest)
  if (!end) throw new Error('the README’s install block has no end (``` then <!-- /install -->)')
  return rest
    .slice(0, end.index)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
}

export interface Places {
  /** What `git clone` is given for `<repository>`. */
  repository: string
  /** The Koishi app's folder, for `<koishi-app>`. */
  app: string
}

/** The commands with the README's placeholders filled in; a placeholder left over is an error. */
export function fillIn(commands: string[], places: Places): string[] {
  const quote = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`
  return commands.map((command) => {
    const filled = command.replaceAll('<repository>', quote(places.repository)).replaceAll('<koishi-app>', quote(places.app))
    const left = /<[a-z-]+>/.exec(filled)
    if (left) throw new Error(`the README’s install command "${command}" has a placeholder the e2e does not know: ${left[0]}`)
    return filled
  })
}

/** Runs the README's install commands in one shell from `cwd` (where the clone is made); returns the tarball. */
export async function installFromReadme(readmePath: string, places: Places, options: RunOptions): Promise<string> {
  const commands = fillIn(installCommands(readFileSync(readmePath, 'utf8')), places)
  await run(
    'bash',
    ['-euo', 'pipefail', '-c', commands.map((command) => `echo "+ ${command.replace(/["$`\\]/g, '\\$&')}"; ${command}`).join('\n')],
    options,
  )
  const { name, version } = JSON.parse(readFileSync(join(places.app, 'node_modules', 'koishi-plugin-memory', 'package.json'), 'utf8')) as {
    name: string
    version: string
  }
  const tarball = join(places.app, `${name}-${version}.tgz`)
  if (!existsSync(tarball)) throw new Error(`the README's commands left no ${tarball}`)
  return tarball
}
