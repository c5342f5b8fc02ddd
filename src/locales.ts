import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { load } from 'js-yaml'

/** Locale files live beside `src/` and `lib/`, so both the sources and the build find them. */
function read(locale: string): Record<string, any> {
  return load(readFileSync(resolve(__dirname, '../locales', `${locale}.yml`), 'utf8')) as Record<string, any>
}

export const locales = {
  'zh-CN': read('zh-CN'),
  'en-US': read('en-US'),
}
