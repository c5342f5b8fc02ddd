export { Maintenance } from './maintenance'
export { startTimers } from './timers'
export type { TimedJobs, TimerSettings } from './timers'
export { msUntilHour } from './timers'
