import type { SeriesPoint } from '../src/console/types'

/** One series of a chart: its colour, its label and how it reads a point. */
export interface ChartLine {
  key: string
  label: string
  color: string
  value: (point: SeriesPoint) => number
}
