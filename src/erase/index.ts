export { Eraser } from './eraser'
export type { EraserDeps, UserRef } from './eraser'
