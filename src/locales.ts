import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { load } from 'js-yaml'

/** A locale file: nested sections of texts. */
export interface LocaleTree {
  [key: string]: string | LocaleTree
}

/** Locale files live beside `src/` and `lib/`, so both the sources and the build find them. */
function read(locale: string): LocaleTree {
  return load(readFileSync(resolve(__dirname, '../locales', `${locale}.yml`), 'utf8')) as LocaleTree
}

export const locales = {
  'zh-CN': read('zh-CN'),
  'en-US': read('en-US'),
}
