export { Eraser } from './eraser'
export type { EraserDeps } from './eraser'
