import type { Logger } from '../../src/core/observability'

/** A logger that says nothing. */
export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} }
