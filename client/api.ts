import { message, send, useI18n } from '@koishijs/client'
import type { ExportChoice, ExportView, Outcome } from '../src/console/types'
import enUS from './locales/en-US.yml'
import zhCN from './locales/zh-CN.yml'

/** The page's texts in the console's language (zh-CN or en-US). */
export const useTexts = () => useI18n({ messages: { 'zh-CN': zhCN, 'en-US': enUS } })

/** An operation the plugin refused or could not do: `code` names its text (`errors.<code>`). */
export class CallError extends Error {
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code)
  }
}

/** Calls one of the plugin's listeners (`memory/…`); its value, or a `CallError`. */
export async function call<T>(name: string, ...args: unknown[]): Promise<T> {
  let outcome: Outcome<T> | undefined
  try {
    outcome = (await (send as unknown as (type: string, ...rest: unknown[]) => Promise<Outcome<T>>)(name, ...args)) ?? undefined
  } catch (error) {
    // the console answers `unauthorized` when the user's authority is too low, `timeout` after a minute
    const text = String((error as Error)?.message ?? error)
    throw new CallError(/unauthorized/.test(text) ? 'unauthorized' : /timeout/.test(text) ? 'timeout' : 'internal', text.split('\n')[0])
  }
  if (!outcome) throw new CallError('offline')
  if (!outcome.ok) throw new CallError(outcome.error, outcome.detail)
  return outcome.value
}

/** Shows what went wrong in the page's language. */
export function useFailure() {
  const { t, te } = useTexts()
  return (error: unknown) => {
    const code = error instanceof CallError ? error.code : 'internal'
    const detail = error instanceof CallError ? error.detail : String((error as Error)?.message ?? error)
    const key = `errors.${code}`
    message.error(te(key) ? t(key, { detail: detail ?? '' }) : t('errors.internal', { detail: detail ?? code }))
  }
}

/** Saves `text` as a file the browser downloads. */
export function download(fileName: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/jsonl;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.appendChild(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Exports a selection and downloads it, or says there is nothing to export; returns what was exported. */
export function useExport() {
  const { t } = useTexts()
  return async (choice: ExportChoice): Promise<ExportView> => {
    const file = await call<ExportView>('memory/export', choice)
    if (!file.total) message.warning(t('transfer.nothing'))
    else download(file.fileName, file.text)
    return file
  }
}

/** A time in the console's language. */
export function formatTime(ms: number | string | null | undefined, locale: string, withTime = true): string {
  if (!ms) return '—'
  const date = new Date(ms)
  return withTime
    ? date.toLocaleString(locale, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(locale, { year: 'numeric', month: '2-digit', day: '2-digit' })
}

/** The local day of a time, `2026-03-01`. */
export function dayOf(ms: number | string): string {
  const date = new Date(ms)
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
}
