// Budgets in the e2e, once the memory has a model (the scripted one, which keeps nothing it is asked
// to memorise): the sandbox's group gets a budget of 0 calls a day on the console's Groups page, and
// what is said there is still memorised, by the offline rules; memory.status says so, and the Health
// page shows today's spend per group.
import type { Page } from 'playwright-core'
import { MemoryPage } from './memory-page'
import type { Report } from './memory-steps'
import { Sandbox } from './sandbox'

const SAID = '我住在杭州，在一家咖啡店工作'
const KEPT = /杭州/
/** The quiet time (overrides.yml) and the job, with room for a loaded machine. */
const MEMORISED_WITHIN_MS = 90_000

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ⏎ ').slice(0, 400)

export async function driveBudgets(report: Report, run: { page: Page; base: string }): Promise<void> {
  const { check, step, screenshot } = report
  const { page } = run
  const memory = new MemoryPage(page, run.base)
  await step('budgets: a group with a budget of 0 is memorised offline', async () => {
    await memory.open('groups')
    const [group] = await memory.groups()
    if (!group) return void check('budget: a group to budget', false, 'none listed')
    await memory.chooseGroup(group)
    const card = page.locator('.groups-budget')
    await card.locator('.budget-calls input').fill('0')
    await card.locator('.budget-save').click()
    await memory.toast()
    check('budget: the Groups page sets a group’s calls a day to 0', /\b0\b/.test(await card.locator('.budget-calls input').inputValue()))

    const sandbox = new Sandbox(page, run.base)
    await sandbox.open()
    await sandbox.addUser()
    await sandbox.panel('group')
    await sandbox.say(SAID)
    const deadline = Date.now() + MEMORISED_WITHIN_MS
    let list = ''
    while (Date.now() < deadline && !KEPT.test((list = await sandbox.command('/memory.list')))) await page.waitForTimeout(3000)
    check('budget: what is said in a group with a budget of 0 is still memorised (offline)', KEPT.test(list), oneLine(list))
    const status = await sandbox.command('/memory.status')
    check('budget: memory.status says the offline rules work there today', /离线规则|offline rules/.test(status), oneLine(status))

    await memory.open('health')
    const spend = page.locator('.health-budget').filter({ hasText: group.guildId })
    await spend.first().waitFor({ timeout: 15_000 })
    check(
      'budget: the Health page shows the group’s spend today, over its budget',
      (await spend.first().getAttribute('data-exhausted')) === 'true',
      oneLine(await spend.first().innerText()),
    )
    // the spend per group at the top of the window, the charts below it
    await page
      .locator('.health-budget')
      .first()
      .evaluate((node) => (node as unknown as { scrollIntoView(options: object): void }).scrollIntoView({ block: 'center' }))
    await screenshot(page, 'console-memory-health-budgets.png')
  })
}
