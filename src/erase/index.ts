export { Eraser } from './eraser'
export type { EraserDeps, ForgetReport } from './eraser'
