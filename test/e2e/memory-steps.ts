// The console's Memory page in the e2e: what an operator does there, checked against what the
// sandbox's users see (`memory.list`), with a screenshot of each view at the normal width, at a
// phone's width and in English.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Group } from './memory-page'
import { MemoryPage } from './memory-page'
import type { Sandbox } from './sandbox'

export interface Report {
  check(name: string, ok: boolean, detail?: string): boolean
  step<T>(name: string, body: () => Promise<T>): Promise<T>
  attempt(name: string, body: () => Promise<void>): Promise<void>
  screenshot(page: Page, name: string): Promise<void>
}

export interface PageRun {
  page: Page
  base: string
  sandbox: Sandbox
  /** The user who spoke in private (her facts are edited and forgotten), and the one who spoke in the group. */
  speaker: string
  groupSpeaker: string
  /** A folder for the files the test uploads. */
  folder: string
}

/** A phone's viewport, narrower than the console's breakpoint (768 px), where its sidebar folds away. */
const NARROW = { width: 390, height: 844 }
const DAY = 86_400_000

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ⏎ ').slice(0, 400)

/** A file of group memories for `group`, as `memory.export` writes them: a memory with two versions, a deleted one, and their change log. */
function groupMemoryFile(group: Group, now = Date.now()): string {
  const at = (days: number) => new Date(now - days * DAY).toISOString()
  const memory = (id: string, data: Record<string, unknown>) => ({
    kind: 'group-memory',
    version: 1,
    data: {
      id,
      platform: group.platform,
      guildId: group.guildId,
      parentId: '',
      supersededBy: '',
      changeSummary: '',
      deprecatedReason: '',
      statusBy: '',
      tags: [],
      runId: '',
      ...data,
    },
  })
  const change = (id: string, data: Record<string, unknown>) => ({
    kind: 'group-change',
    version: 1,
    data: { id, previousId: '', platform: group.platform, guildId: group.guildId, oldStatement: '', newStatement: '', runId: '', ...data },
  })
  const records = [
    memory('e2e-hike-1', {
      statement: '群里的人周末常去爬山',
      version: 1,
      supersededBy: 'e2e-hike-2',
      status: 'deprecated',
      strength: 0.6,
      createdAt: at(3),
      updatedAt: at(1),
    }),
    memory('e2e-hike-2', {
      statement: '群里的人周末常去骑行',
      version: 2,
      parentId: 'e2e-hike-1',
      status: 'active',
      strength: 0.8,
      changeSummary: '大家改成骑行了',
      createdAt: at(1),
      updatedAt: at(1),
    }),
    memory('e2e-dinner', {
      statement: '群里约好每月聚餐一次',
      version: 1,
      status: 'deprecated',
      deprecatedReason: '聚餐取消了',
      strength: 0.5,
      createdAt: at(3),
      updatedAt: at(0.01),
    }),
    change('e2e-c1', {
      memoryId: 'e2e-hike-1',
      action: 'create',
      newStatement: '群里的人周末常去爬山',
      reason: '多人提到',
      version: 1,
      createdAt: at(3),
    }),
    change('e2e-c2', {
      memoryId: 'e2e-dinner',
      action: 'create',
      newStatement: '群里约好每月聚餐一次',
      reason: '约定',
      version: 1,
      createdAt: at(3),
    }),
    change('e2e-c3', {
      memoryId: 'e2e-hike-2',
      previousId: 'e2e-hike-1',
      action: 'update',
      oldStatement: '群里的人周末常去爬山',
      newStatement: '群里的人周末常去骑行',
      reason: '大家改成骑行了',
      version: 2,
      createdAt: at(1),
    }),
    change('e2e-c4', {
      memoryId: 'e2e-dinner',
      action: 'delete',
      oldStatement: '群里约好每月聚餐一次',
      reason: '聚餐取消了',
      version: 1,
      createdAt: at(0.01),
    }),
  ]
  return records.map((record) => JSON.stringify(record)).join('\n') + '\n'
}

/** What `memory.list` answers the private speaker, in the sandbox. */
/** What `memory.<command>` answers the speaker in their private chat. */
async function memoryCommand(run: PageRun, command: string): Promise<string> {
  await run.sandbox.open()
  await run.sandbox.selectUser(run.speaker)
  await run.sandbox.panel('private')
  return run.sandbox.command(`/memory.${command}`)
}

const memoryList = (run: PageRun, args = '') => memoryCommand(run, `list${args}`)

/** Whether the page fits its width: nothing wider than the window. */
async function fitsWidth(page: Page): Promise<{ ok: boolean; detail: string }> {
  const sizes = await page.evaluate(() => {
    // the page's own objects (no DOM types here: the test runs in Node)
    interface Box {
      scrollWidth: number
      clientWidth: number
    }
    const { document, innerWidth } = globalThis as unknown as {
      document: { documentElement: Box; querySelector(selector: string): Box | null }
      innerWidth: number
    }
    const body = document.querySelector('.page-memory .memory-body')
    return { page: document.documentElement.scrollWidth, window: innerWidth, body: body?.scrollWidth ?? 0, bodyBox: body?.clientWidth ?? 0 }
  })
  return { ok: sizes.page <= sizes.window && sizes.body <= sizes.bodyBox + 1, detail: JSON.stringify(sizes) }
}

export async function driveMemoryPage(report: Report, run: PageRun): Promise<void> {
  const { check, step, attempt, screenshot } = report
  const { page } = run
  const memory = new MemoryPage(page, run.base)
  let group: Group | undefined

  await attempt('memory page: people', () =>
    step('console: the Memory page — a person, a fact edited and forgotten', async () => {
      await memory.open()
      const tabs = await memory.tabs()
      check(
        'page: it opens from its address, with its tabs',
        ['people', 'groups', 'moderation', 'health', 'transfer'].every((tab) => tabs.includes(tab)),
        tabs.join(', '),
      )
      check('page: the console names it in the title', /^记忆/.test(await page.title()), await page.title())

      await memory.searchUser(run.speaker.slice(0, 3).toLowerCase())
      await memory.openUser(run.speaker)
      const city = memory.currentFact(/成都/)
      const said = (await city.count()) === 1 ? await city.locator('.fact-content').innerText() : ''
      check(`people: ${run.speaker}'s fact from the sandbox (成都) is listed`, Boolean(said), oneLine(await memory.text()))
      await city.locator('.fact-sources-toggle').click()
      const source = await city.locator('.fact-source').first().innerText()
      check('people: the fact shows the message it came from', /成都/.test(source), oneLine(source))
      await screenshot(page, 'console-memory-people.png')

      const edited = said.replace('成都', '重庆')
      await memory.editFact(city, edited)
      const now = memory.currentFact(/重庆/)
      const diff = (await now.count()) === 1 ? await now.locator('.memory-diff').innerText() : ''
      check(
        'people: the edit is a new version, the old one closed and kept',
        (await memory.closedFact(/成都/).count()) === 1,
        oneLine(await memory.text()),
      )
      check(
        'people: the new version shows what changed',
        (await now
          .locator('.memory-diff del')
          .innerText()
          .catch(() => '')) === '成都' &&
          (await now
            .locator('.memory-diff ins')
            .innerText()
            .catch(() => '')) === '重庆',
        oneLine(diff),
      )
      await now.scrollIntoViewIfNeeded()
      await screenshot(page, 'console-memory-people-edited.png')

      const listed = await memoryList(run)
      check('sandbox: memory.list shows the edited fact', listed.includes('重庆') && !listed.includes('成都'), oneLine(listed))
      // the second recall is answered from the scope cache the first one filled
      for (const attempt of ['first', 'second']) {
        const recalled = await memoryCommand(run, 'recall 我住在哪里')
        check(
          `sandbox: memory.recall finds the edited fact (${attempt} time)`,
          recalled.includes('重庆') && !recalled.includes('成都'),
          oneLine(recalled),
        )
      }
      const status = await memoryCommand(run, 'status')
      const cache = /检索缓存：已用 [\d.]+ \/ [\d.]+ MB，保存了 (\d+) 个用户、群组或频道；(\d+)% 的检索直接在内存中完成/.exec(status)
      check(
        'sandbox: memory.status shows searches answered from the scope cache',
        !!cache && +cache[1] > 0 && +cache[2] > 0,
        oneLine(status),
      )
      // the chats the bot answered in are held whole for the context builder
      const held = /消息缓存：已用 [\d.]+ \/ [\d.]+ MB，保存了 (\d+) 个频道的全部 (\d+) 条消息/.exec(status)
      check('sandbox: memory.status shows the chats held for building contexts', !!held && +held[1] > 0 && +held[2] > 0, oneLine(status))
      check('sandbox: memory.status has no text left untranslated', !/commands\.memory\./.test(status), oneLine(status))

      await memory.open('people')
      await memory.searchUser(run.speaker)
      await memory.openUser(run.speaker)
      const forgotten = await memory.forgetFact(memory.currentFact(/重庆/))
      check('people: the page says what the forget removed, by kind', /删除了：.*记忆 2 条/.test(forgotten), oneLine(forgotten))
      check(
        'people: the forgotten fact is gone from the page',
        (await memory
          .facts()
          .filter({ hasText: /重庆|成都/ })
          .count()) === 0,
        oneLine(await memory.text()),
      )
      await memory.open('people')
      await memory.searchUser(run.speaker)
      await memory.openUser(run.speaker)
      check(
        'people: nor is it anywhere on the page after a reload (sources, profile)',
        !/重庆|成都/.test(await memory.text()),
        oneLine(await memory.text()),
      )
      const after = await memoryList(run)
      check('sandbox: memory.list no longer has it', !/重庆|成都/.test(after) && /豆豆|柯基/.test(after), oneLine(after))
      const history = await memoryList(run, ' -a')
      check('sandbox: nor does memory.list -a (its earlier version went with it)', !/重庆|成都/.test(history), oneLine(history))
      const recalled = await memoryCommand(run, 'recall 我住在哪里')
      check('sandbox: nor does memory.recall', !/重庆|成都/.test(recalled), oneLine(recalled))
      const profile = await memoryCommand(run, 'profile')
      check('sandbox: nor does memory.profile', !/重庆|成都/.test(profile), oneLine(profile))
      await run.sandbox.panel('group')
      const reply = await run.sandbox.command('小记，我住在哪里？')
      check('sandbox: nor does the bot when asked in the group', !/重庆|成都/.test(reply), oneLine(reply))
    }),
  )

  await attempt('memory page: import and export', () =>
    step('console: the Memory page — export and import', async () => {
      await memory.open('groups')
      const groups = await memory.groups()
      group = groups[0]
      check('groups: the sandbox group is listed', groups.length === 1, JSON.stringify(groups))

      await memory.tab('transfer')
      const all = await memory.download(page.locator('.transfer-download'))
      const lines = all.text.trim().split('\n')
      const parsed = lines.every((line) => {
        try {
          return typeof JSON.parse(line).kind === 'string'
        } catch {
          return false
        }
      })
      check(
        'transfer: exporting everything downloads JSON Lines',
        /^memory-all-[\d-]+\.jsonl$/.test(all.name) && parsed,
        `${all.name}, ${lines.length} lines`,
      )
      check('transfer: the export holds what the users said', /豆豆/.test(all.text) && /上海/.test(all.text))

      if (!group) return
      const file = join(run.folder, 'group-memories.jsonl')
      writeFileSync(file, groupMemoryFile(group))
      const result = await memory.upload(file)
      check('transfer: the uploaded file is imported', /群组记忆：导入 3/.test(result) && /群组变更：导入 4/.test(result), oneLine(result))
      await screenshot(page, 'console-memory-transfer.png')
    }),
  )

  await attempt('memory page: groups', () =>
    step('console: the Memory page — a group', async () => {
      if (!group) return void check('groups: a group to look at', false, 'none listed')
      await memory.open('groups')
      await memory.chooseGroup(group)
      const cycling = memory.groupMemory(/骑行/)
      await cycling.waitFor({ timeout: 15_000 })
      check('groups: the memories with their strength', /80%/.test(await cycling.locator('.groups-strength').innerText()))
      await cycling.locator('.groups-versions').click()
      const history = cycling.locator('.groups-history')
      await history.waitFor({ timeout: 15_000 })
      check(
        'groups: the versions as a readable diff',
        (await history.locator('del').innerText()) === '爬山' && (await history.locator('ins').innerText()) === '骑行',
        oneLine(await history.innerText()),
      )
      const dinner = memory.groupMemory(/聚餐/)
      await dinner.locator('.groups-restore').click()
      await memory.toast()
      await dinner.locator('.el-tag--success').waitFor({ timeout: 15_000 })
      check('groups: a deleted memory is restored', (await dinner.locator('.groups-restore').count()) === 0)

      await page.locator('.groups-evolve').click()
      const evolution = page.locator('.groups-evolution .evolution-result')
      await evolution.waitFor({ timeout: 60_000 })
      const said = await evolution.innerText()
      // the e2e app runs the offline rules: the page says why nothing evolves
      check('groups: "evolve now" runs and says how it ended', /没有配置判断模型|演进完成|没有新消息/.test(said), oneLine(said))
      await screenshot(page, 'console-memory-groups.png')

      await memory.groupView('changes')
      const days = await page.locator('.groups-day').count()
      const log = await memory.text()
      check(
        'groups: the change log by day, with the restore',
        days >= 3 && /恢复/.test(log) && /更新/.test(log),
        `${days} days: ${oneLine(log)}`,
      )
      await screenshot(page, 'console-memory-groups-changes.png')

      await memory.groupView('topics')
      const topics = page.locator('.groups-topic')
      await topics.first().waitFor({ timeout: 15_000 })
      for (let i = 0; i < (await topics.count()); i++) await topics.nth(i).locator('.groups-raw').click()
      await page.locator('.groups-messages').first().waitFor({ timeout: 15_000 })
      const raw = await memory.text()
      check(`groups: the topics with their raw messages (${run.groupSpeaker}'s)`, /上海出差/.test(raw), oneLine(raw))
      check('groups: a topic summary with keywords and quality scores', (await page.locator('.groups-summary').count()) > 0, oneLine(raw))
      await screenshot(page, 'console-memory-groups-topics.png')

      const exported = await memory.download(page.locator('.groups-head .el-button').last())
      check(
        'groups: the group exports with its memories',
        /^memory-group-/.test(exported.name) && /骑行/.test(exported.text),
        exported.name,
      )
    }),
  )

  await attempt('memory page: health', () =>
    step('console: the Memory page — health and cost', async () => {
      await memory.open('health')
      await page.locator('.memory-health .health-table').first().waitFor({ timeout: 15_000 })
      const text = await memory.text()
      check(
        'health: the providers in use and why (offline, no key)',
        /离线规则/.test(text) && /没有填写 API 密钥/.test(text),
        oneLine(text),
      )
      check('health: breakers in plain words', /向量库\s*正常/.test(text), oneLine(text))
      check('health: index sizes', /记忆\s*memories\s*\d+ 行/.test(text), oneLine(text))
      check('health: the four charts', (await page.locator('.memory-chart svg').count()) === 4)
      await screenshot(page, 'console-memory-health.png')
      // the series is sampled every 10 s after a start: by now the charts have points
      const bars = await page.locator('.memory-chart rect').count()
      const dialogues = await page.locator('.memory-chart').nth(3).locator('rect').count()
      check('health: the charts are drawn from the sampled series', bars > 0 && dialogues > 0, `${bars} bars`)
      await page.locator('.health-charts').scrollIntoViewIfNeeded()
      await screenshot(page, 'console-memory-health-charts.png')
    }),
  )

  await attempt('memory page: narrow', () =>
    step('console: the Memory page at a phone’s width', async () => {
      await page.setViewportSize(NARROW)
      try {
        await memory.open('people')
        await memory.searchUser(run.speaker)
        await memory.openUser(run.speaker)
        let fits = await fitsWidth(page)
        check(`narrow: people fits ${NARROW.width} px`, fits.ok, fits.detail)
        await screenshot(page, 'console-memory-narrow-people.png')
        if (group) {
          await memory.open('groups')
          await memory.chooseGroup(group)
          await memory.groupMemory(/骑行/).waitFor({ timeout: 15_000 })
          fits = await fitsWidth(page)
          check(`narrow: groups fits ${NARROW.width} px`, fits.ok, fits.detail)
          await screenshot(page, 'console-memory-narrow-groups.png')
        }
        await memory.open('health')
        await page.locator('.memory-chart svg').first().waitFor({ timeout: 15_000 })
        fits = await fitsWidth(page)
        check(`narrow: health fits ${NARROW.width} px`, fits.ok, fits.detail)
        await screenshot(page, 'console-memory-narrow-health.png')
      } finally {
        await page.setViewportSize({ width: 1280, height: 960 })
      }
    }),
  )

  await attempt('memory page: English', () =>
    step('console: the Memory page in English', async () => {
      await memory.open('health')
      await memory.language('en-US')
      try {
        await memory.open('health')
        await page.locator('.memory-health .health-table').first().waitFor({ timeout: 15_000 })
        const tabs = await page.locator('.memory-tabs').innerText()
        const text = await memory.text()
        check('english: the tabs', /People/.test(tabs) && /Health and cost/.test(tabs), oneLine(tabs))
        check('english: the health tab', /the offline rules/.test(text) && /vector store\s*working/.test(text), oneLine(text))
        await screenshot(page, 'console-memory-en-health.png')
        await memory.open('people')
        await memory.searchUser(run.speaker)
        await memory.openUser(run.speaker)
        const people = await memory.text()
        check('english: the people tab', /Memories: \d+ current, \d+ in all/.test(people), oneLine(people))
        await screenshot(page, 'console-memory-en-people.png')
      } finally {
        await memory.language('zh-CN')
      }
    }),
  )
}

/**
 * Moderation, once the memory has a model (the e2e's scripted one): the group is set to review in the
 * page, "evolve now" queues the model's proposal instead of applying it, and it is approved there.
 */
export async function driveModeration(report: Report, run: Pick<PageRun, 'page' | 'base'>): Promise<void> {
  const { check, step, screenshot } = report
  const { page } = run
  const memory = new MemoryPage(page, run.base)
  await step('console: the Memory page — moderation', async () => {
    await memory.open('groups')
    const [group] = await memory.groups()
    if (!group) return void check('moderation: a group to moderate', false, 'none listed')
    await memory.open('moderation')
    await memory.chooseGroup(group, '.moderation-group')
    await page.locator('.moderation-mode .el-radio-button', { hasText: '审核' }).click()
    await memory.toast()
    await memory.open('groups')
    await memory.chooseGroup(group)
    await page.locator('.groups-evolve').click()
    const said = await page.locator('.groups-evolution .evolution-result').innerText({ timeout: 60_000 })
    check('moderation: evolving a group in review mode queues the plan', /审核/.test(said), oneLine(said))
    await memory.open('moderation')
    await memory.chooseGroup(group, '.moderation-group')
    const ops = page.locator('.moderation-op')
    await ops
      .first()
      .waitFor({ timeout: 15_000 })
      .catch(() => undefined)
    const before = await ops.count()
    check('moderation: the proposal waits in the queue', before > 0, `${before} waiting`)
    if (!before) return
    const proposal = await ops.first().locator('.moderation-statement textarea').inputValue()
    await screenshot(page, 'console-memory-moderation.png')
    await ops.first().locator('.moderation-approve').click()
    await memory.toast()
    const left = await ops
      .nth(before - 1)
      .waitFor({ state: 'detached', timeout: 5_000 })
      .then(() => true)
      .catch(() => false)
    check('moderation: the approved proposal leaves the queue', left && (await ops.count()) === before - 1, `${await ops.count()} waiting`)
    await memory.open('groups')
    await memory.chooseGroup(group)
    const memories = (await page.locator('.groups-memory .memory-statement').allInnerTexts()).join(' | ')
    check(
      'moderation: the approved memory is the group’s now',
      memories.includes(proposal),
      `${proposal} in ${oneLine(memories).slice(0, 200)}`,
    )
  })
}
