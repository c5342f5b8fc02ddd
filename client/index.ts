// The console's Memory page: People, Groups, Moderation (with the review queue), Health and Import/export.
// Built to dist/ by `koishi-console build` (npm run build); the plugin adds it with `ctx.console.addEntry`.
import type { Context } from '@koishijs/client'
import { icons, useConfig } from '@koishijs/client'
import type { EntryData } from '../src/console/types'
import Icon from './icon.vue'
import Page from './page.vue'

icons.register('activity:memory', Icon)

export default (ctx: Context) => {
  const config = useConfig()
  const data = (ctx as { extension?: { data?: { value?: EntryData } } }).extension?.data?.value
  ctx.page({
    path: '/memory',
    name: () => (config.value.locale?.startsWith('en') ? 'Memory' : '记忆'),
    icon: 'activity:memory',
    order: 450,
    authority: data?.authority.page ?? 4,
    component: Page,
  })
}
