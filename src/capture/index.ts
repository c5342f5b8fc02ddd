export { CaptureJournal } from './journal'
export { CapturePipeline } from './pipeline'
export { isSession, targetOf } from './session-rows'
