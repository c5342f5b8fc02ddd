export { Eraser } from './eraser'
export { exportsHolding, removeExports } from './export-files'
export type { ChatMessage, EraserDeps, ForgetReport } from './eraser'
export { ERASED_KINDS } from './kinds'
