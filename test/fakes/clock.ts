/** Noon UTC on 1 January 2025: where test time starts unless a test gives its own start. */
export const START = Date.UTC(2025, 0, 1, 12)

/** The time `seconds` after `start` (a Date or epoch milliseconds; START by default). */
export function at(seconds: number, start: Date | number = START): Date {
  return new Date(+start + seconds * 1000)
}
