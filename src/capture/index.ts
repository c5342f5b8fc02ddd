export { ChatEvents, eventTarget } from './chat-events'
export { CaptureJournal } from './journal'
export { CapturePipeline } from './pipeline'
export { isSession, targetOf } from './session-rows'
