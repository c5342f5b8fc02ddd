import type { ExportResult, ExportSelection } from './export'
import { exportMemory, writeExport } from './export'
import type { ImportOptions, ImportResult } from './import'
import { importMemory } from './import'
import type { TransferPorts } from './ports'
import type { ImportSource } from './source'

export class TransferError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TransferError'
  }
}

/** Export and import of memory (JSON Lines; mem0's export on the way in) over the domains' stores. */
export class MemoryTransfer {
  constructor(private readonly ports: TransferPorts) {}

  /** One user's memory, one group's, or everything, as JSON Lines. */
  export(selection: ExportSelection): Promise<ExportResult> {
    checkSelection(selection)
    return exportMemory(this.ports, selection)
  }

  /** The same, handed to `write` a chunk of whole lines at a time. */
  exportTo(selection: ExportSelection, write: (chunk: string) => Promise<void>): Promise<Omit<ExportResult, 'text'>> {
    checkSelection(selection)
    return writeExport(this.ports, selection, write)
  }

  /** Re-creates what an export (ours or mem0's) holds, read as text or streamed from a source; see `importMemory`. */
  import(input: string | ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
    return importMemory(this.ports, input, options)
  }
}

function checkSelection(selection: ExportSelection) {
  if ('user' in selection && (!selection.user.platform || !selection.user.userId))
    throw new TransferError('a user is named by a platform and a user id')
  if ('group' in selection && (!selection.group.platform || !selection.group.guildId))
    throw new TransferError('a group is named by a platform and a guild id')
}
