// End-to-end: the plugin as a user installs it. Follows the README's install commands literally: a
// fresh clone of the repository's committed HEAD (uncommitted changes are not tested), built and packed,
// the tarball installed into a fresh Koishi app in a temp folder, writes the app's koishi.yml from koishi.yml.example, starts it with the
// Koishi CLI and drives the console's sandbox in headless Chromium: two users, a private chat and a
// group chat, Chinese and English, then `memory.list`, the plugin's settings page and its Memory page
// (test/e2e/memory-steps.ts: a person's fact edited and forgotten, import and export, a group's
// memories, change log and topics, moderation when the review queue is there, health; at a phone's
// width and in English).
//
//   npm run test:e2e
//
// Prints what the plugin adds to the app's node_modules ("install: the plugin adds N MB to a fresh Koishi
// app") and the tarball's size, again beside the timings at the end (figures:). Ends with "N passed, N failed"
// and exits non-zero on any failure. Screenshots go to
// docs/screenshots/. Settings (environment): E2E_CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1
// keeps the temp folder, E2E_CACHE (npm's cache, kept between runs; default in the OS temp folder),
// E2E_FACTS_TIMEOUT_MS (how long to wait for memories, default 90 s), E2E_SCREENSHOTS (folder).
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import yaml from 'js-yaml'
import type { BrowserContext, Page } from 'playwright-core'
import { chromium } from 'playwright-core'
import type { Dirs, Footprint } from './app'
import {
  appConfig,
  merge,
  childEnv,
  ensureDirs,
  footprint,
  freePort,
  nodeModulesKb,
  run,
  stopTree,
  tail,
  topLevelPackages,
  writeAppPackage,
} from './app'
import type { Fact, Script } from './facts'
import { GROUP_B, mentioned, ownEntries, PRIVATE_A, statusCounts } from './facts'
import { installCommands, installFromReadme } from './install'
import { driveMemoryPage, driveModeration } from './memory-steps'
import { driveBudgets } from './budget-steps'
import { recallFromSandbox } from './chat-events'
import { Sandbox } from './sandbox'
import { chat, json, ScriptedServer } from '../integration/scripted-server'

const REPO = resolve(__dirname, '../..')
const CHROMIUM = process.env.E2E_CHROMIUM || '/usr/bin/chromium'
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const FACTS_TIMEOUT_MS = Number(process.env.E2E_FACTS_TIMEOUT_MS) || 90_000
/** Before memories may be taken as settled: the quiet time and the background job's time. */
const SETTLE_MS = 20_000
/** Said just before Koishi is stopped, and what memory.list must show of it after the next start. */
const LAST_WORDS = '我的生日是10月25日'
const LAST_FACT = /生日.*10月25|10月25.*生日/
/** The word that makes the built-in chat answer in the group (overrides.yml), and what B asks with it. */
const CHAT_QUESTION = '小记，我下周三要去哪里出差来着？'
const SCREENSHOTS = resolve(REPO, process.env.E2E_SCREENSHOTS || 'docs/screenshots')
const VIEWPORT = { width: 1280, height: 960 }

// ── results and timings ──────────────────────────────────────────────────────

let passed = 0
let failed = 0
const timings: [string, number][] = []
/** The run's figures, printed again beside the timings at the end. */
const figures: string[] = []

function check(name: string, ok: boolean, detail = ''): boolean {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}${detail ? `  —  ${detail}` : ''}`)
  return ok
}

async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
  const start = Date.now()
  console.log(`\n── ${name}`)
  try {
    return await body()
  } finally {
    timings.push([name, Date.now() - start])
  }
}

/** Runs `body`; a throw is one failed check instead of the end of the run. */
async function attempt(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body()
  } catch (error) {
    check(name, false, (error as Error).message.split('\n')[0])
  }
}

function seconds(ms: number) {
  return `${(ms / 1000).toFixed(1)} s`
}

// ── the app ──────────────────────────────────────────────────────────────────

interface Started {
  child: ChildProcess
  log: string
  base: string
}

/**
 * A fresh Koishi app (Koishi and its console plugins), then the plugin installed as the README says:
 * cloned, built and packed, the tarball installed into the app.
 */
async function install(dirs: Dirs, env: NodeJS.ProcessEnv): Promise<{ print: Footprint; tarball: string }> {
  const log = join(dirs.root, 'install.log')
  writeAppPackage(dirs)
  // first Koishi and its plugins, so that what the plugin adds can be measured
  let start = Date.now()
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=warn'], {
    cwd: dirs.app,
    env,
    timeoutMs: 420_000,
    log,
  })
  console.log(`Koishi app installed in ${seconds(Date.now() - start)}`)
  const packages = topLevelPackages(dirs.app)
  const beforeKb = await nodeModulesKb(dirs.app, env)
  start = Date.now()
  const tarball = await installFromReadme(
    join(REPO, 'README.md'),
    { repository: REPO, app: dirs.app },
    { cwd: dirs.root, env, timeoutMs: 900_000, log },
  )
  console.log(`the README's install commands ran in ${seconds(Date.now() - start)} (log: ${log})`)
  return { print: await footprint(dirs.app, env, packages, beforeKb), tarball }
}

function printFootprint(print: Footprint, tarball: string) {
  const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`
  console.log(`node_modules: ${mb(print.before)} without the plugin, ${mb(print.after)} with it (+${mb(print.after - print.before)})`)
  figures.push(`install: the plugin adds ${mb(print.after - print.before)} to a fresh Koishi app`)
  figures.push(`package: the tarball is ${(statSync(tarball).size / 1000).toFixed(0)} kB`)
  for (const figure of figures) console.log(figure)
  console.log(`${print.added.length} packages added; the largest:`)
  for (const { name, kb } of print.added.slice(0, 10)) console.log(`  ${mb(kb).padStart(9)}  ${name}`)
}

async function startApp(dirs: Dirs, env: NodeJS.ProcessEnv, port: number): Promise<Started> {
  const log = join(dirs.root, 'koishi.log')
  const fd = openSync(log, 'a')
  // its own process group, so that the CLI and the worker it forks end together
  const child = spawn(join(dirs.app, 'node_modules/.bin/koishi'), ['start'], {
    cwd: dirs.app,
    env,
    stdio: ['ignore', fd, fd],
    detached: true,
  })
  closeSync(fd)
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`koishi start exited with ${child.exitCode ?? child.signalCode}\n${tail(log)}`)
    }
    try {
      const response = await fetch(base + '/', { signal: AbortSignal.timeout(2000) })
      if (response.ok && (await response.text()).includes('<div id="app"')) return { child, log, base }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopTree(child)
      throw new Error(`the console did not answer on ${base} within 60 s\n${tail(log)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

// ── the browser ──────────────────────────────────────────────────────────────

async function launch(dirs: Dirs): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(join(dirs.root, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: VIEWPORT,
    locale: 'zh-CN',
    timeout: 60_000,
  })
  // the page may reach the app on loopback and nothing else
  await context.route(
    (url) => !/^(127\.0\.0\.1|localhost)$/.test(url.hostname) && url.protocol !== 'data:' && url.protocol !== 'blob:',
    (route) => route.abort('blockedbyclient'),
  )
  return context
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, name)
  // transitions stopped: a tag or a toast caught fading in is not what the reader sees
  await page.screenshot({ path, animations: 'disabled' })
  console.log(`screenshot ${join(process.env.E2E_SCREENSHOTS || 'docs/screenshots', name)}`)
}

/** Says each line of a script as the current user. */
async function tell(sandbox: Sandbox, script: Script): Promise<void> {
  for (const line of script.says) await sandbox.say(line)
}

/**
 * Waits until the memories have settled, asking `memory.status` as a third user in their own private
 * chat (so the two users' chats show only what they said): until every stated fact could be there,
 * or the count has stood still with the queue empty once the quiet time has passed, or the timeout.
 */
async function waitForMemories(sandbox: Sandbox, observer: string, expected: number, lastSaid: number): Promise<string> {
  await sandbox.selectUser(observer)
  await sandbox.panel('private')
  const deadline = lastSaid + FACTS_TIMEOUT_MS
  let previous: number | undefined
  for (;;) {
    const status = await sandbox.command('/memory.status')
    const { facts, queue } = statusCounts(status)
    const settled = Date.now() - lastSaid >= SETTLE_MS
    if (facts !== undefined && facts >= expected) return `all ${facts} memories after ${seconds(Date.now() - lastSaid)}`
    if (settled && facts !== undefined && facts === previous && queue === 0) {
      return `${facts} memories, unchanged ${seconds(Date.now() - lastSaid)} after the last message`
    }
    if (settled && facts === undefined) return `memory.status is worded differently; waited ${seconds(SETTLE_MS)}`
    if (Date.now() > deadline) return `timed out after ${seconds(FACTS_TIMEOUT_MS)} with ${facts} memories`
    previous = facts
    await sandbox.page.waitForTimeout(3000)
  }
}

function checkFacts(label: string, answer: string, facts: Fact[], others: Fact[]): void {
  for (const result of ownEntries(answer, facts)) check(`${label}: "${result.fact.name}" is an entry of its own`, result.ok, result.detail)
  const leaked = mentioned(answer, others)
  check(`${label}: no other user's facts`, leaked.length === 0, leaked.map((fact) => fact.name).join(', '))
}

/** Drives the sandbox and the console; returns the user who spoke in private. */
async function drive(context: BrowserContext, base: string, folder: string): Promise<string> {
  const page = context.pages()[0] ?? (await context.newPage())
  const sandbox = new Sandbox(page, base)

  let speaker = ''
  let groupSpeaker = ''
  await step('sandbox: two users, a private chat and a group chat', async () => {
    await sandbox.open()
    const a = await sandbox.addUser()
    const b = await sandbox.addUser()
    const observer = await sandbox.addUser()
    check('sandbox: three users added', new Set([a, b, observer]).size === 3, `${a}, ${b}, ${observer}`)
    speaker = a
    groupSpeaker = b

    // the third user, the last added and so the current one, looks around first as a newcomer would
    await sandbox.panel('private')
    const help = await sandbox.command('/help')
    check('help lists the memory command', /memory/.test(help), help.replace(/\n/g, ' ⏎ '))

    // memory forming where the owner sees it: a private line waits for the private quiet time (a minute),
    // memory.list says so and by when, and memory.flush memorises it at once
    const newcomer = await sandbox.addUser()
    await sandbox.selectUser(newcomer)
    await sandbox.panel('private')
    await sandbox.say('我住在杭州')
    const waiting = await sandbox.command('/memory.list')
    check('private: memory.list says what waits and by when', /1 条消息等待记忆，一分钟内完成/.test(waiting), waiting.replace(/\n/g, ' ⏎ '))
    check('private: memory.list names memory.flush to whoever may run it', /memory\.flush/.test(waiting))
    await screenshot(page, 'sandbox-private-waiting.png')
    const flushed = await sandbox.command('/memory.flush')
    check('private: memory.flush memorises what waits', /已记忆 1 段对话中的 1 条消息/.test(flushed), flushed)
    const kept = await sandbox.command('/memory.list')
    check(
      'private: after memory.flush, memory.list shows the fact',
      /杭州/.test(kept) && !/等待记忆/.test(kept),
      kept.replace(/\n/g, ' ⏎ '),
    )
    await screenshot(page, 'sandbox-private-flushed.png')

    await sandbox.selectUser(a)
    await sandbox.panel('private')
    await tell(sandbox, PRIVATE_A)
    await sandbox.selectUser(b)
    await sandbox.panel('group')
    await tell(sandbox, GROUP_B)
    const lastSaid = Date.now()
    console.log(`${a} said ${PRIVATE_A.says.length} messages in private, ${b} ${GROUP_B.says.length} in the group`)

    await step('waiting for memories', async () => {
      // and the newcomer's one fact, memorised by memory.flush above
      const how = await waitForMemories(sandbox, observer, PRIVATE_A.facts.length + GROUP_B.facts.length + 1, lastSaid)
      console.log(how)
    })

    await sandbox.selectUser(a)
    await sandbox.panel('private')
    const listA = await sandbox.command('/memory.list')
    console.log(`${a} (private) memory.list:\n  ${listA.replace(/\n/g, '\n  ')}`)
    checkFacts(`${a}, private`, listA, PRIVATE_A.facts, GROUP_B.facts)
    await screenshot(page, 'sandbox-private-memory-list.png')

    const profile = await sandbox.command('/memory.profile')
    console.log(`${a} (private) memory.profile:\n  ${profile.replace(/\n/g, '\n  ')}`)
    check(
      `${a}, private: memory.profile tells what she said of herself`,
      /成都|小明|老师|花生|hotpot|guitar/i.test(profile),
      profile.replace(/\n/g, ' ⏎ '),
    )
    // said once: a like is not repeated as a fact or a line under the profile's text
    const said = profile.match(/hotpot|火锅|guitar|吉他/gi) ?? []
    check(
      `${a}, private: memory.profile says each thing once`,
      said.length === new Set(said.map((word) => word.toLowerCase())).size,
      profile.replace(/\n/g, ' ⏎ '),
    )
    check(
      `${a}, private: memory.profile shows none of ${b}'s facts`,
      mentioned(profile, GROUP_B.facts).length === 0,
      profile.replace(/\n/g, ' ⏎ '),
    )
    const place = await sandbox.command('/memory.entity 成都')
    check(
      `${a}, private: memory.entity 成都 knows the place`,
      /成都/.test(place) && !/没有|no entity|not found/i.test(place),
      place.replace(/\n/g, ' ⏎ '),
    )
    await screenshot(page, 'sandbox-private-memory-profile.png')

    // a question in the user's own words, in each language: the first memory recalled answers it
    for (const [question, answer] of [
      ['我的柯基叫什么名字来着？', /豆豆/],
      ['what am I learning these days?', /guitar|吉他/i],
    ] as const) {
      const recalled = await sandbox.command(`/memory.recall ${question}`)
      const first = recalled.split('\n').find((line) => /^\s*1\./.test(line)) ?? ''
      check(`${a}, private: memory.recall ${question} answers first`, answer.test(first), recalled.replace(/\n/g, ' ⏎ '))
    }

    await recallFromSandbox(sandbox, a, check, screenshot)

    await sandbox.selectUser(b)
    await sandbox.panel('group')
    const listB = await sandbox.command('/memory.list')
    console.log(`${b} (group) memory.list:\n  ${listB.replace(/\n/g, '\n  ')}`)
    checkFacts(`${b}, group`, listB, GROUP_B.facts, PRIVATE_A.facts)
    // "Bob 2026年12月2日…", never "Bob2026年12月2日…"
    check(`${b}, group: a date is set apart from the name before it`, !/[A-Za-z]\d{4}年/.test(listB), listB.replace(/\n/g, ' ⏎ '))
    await screenshot(page, 'sandbox-group-memory-list.png')

    // in a group, memory.list shows what was learnt in that group about the caller only
    await sandbox.selectUser(a)
    const listAGroup = await sandbox.command('/memory.list')
    const leaked = mentioned(listAGroup, GROUP_B.facts)
    check(
      `${a}, group: none of ${b}'s facts`,
      leaked.length === 0,
      leaked.map((fact) => fact.name).join(', ') || listAGroup.replace(/\n/g, ' ⏎ '),
    )

    await sandbox.selectUser(b)
    await askTheChat(sandbox, page, b)
  })

  await step('console: the plugin settings page', async () => {
    await page.goto(`${base}/plugins`, { waitUntil: 'domcontentloaded', timeout: 15_000 })
    // the plugin tree on the left, then the page of the plugin
    await page.getByText('memory', { exact: true }).first().click({ timeout: 15_000 })
    await page.waitForURL(/\/plugins\/\w+$/, { timeout: 15_000 })
    await page.getByText('apiKey').first().waitFor({ timeout: 15_000 })
    const text = await page.locator('body').innerText()
    check('settings: the memory page opens', /memory \[\w+\]/.test(text), /memory \[\w+\]/.exec(text)?.[0] ?? 'no "memory [id]" title')
    check('settings: it says memory provides the memory service', text.includes('此插件提供了 memory 服务'))
    check(
      'settings: the basic fields are shown (embedding.provider and apiKey, llm.provider)',
      ['embedding.', 'provider', 'apiKey', 'llm.'].every((label) => text.includes(label)),
    )
    // advanced sections stay collapsed: their fields are not on the page until opened
    check(
      'settings: advanced sections are collapsed (store.path, memorize.quietSeconds, the prompts)',
      !text.includes('factsTable') && !text.includes('quietSeconds') && !text.includes('groupEvolveZh'),
    )
    // the basic settings end where the first collapsed section (the memorising settings) begins
    const advanced = await page.getByText('何时记忆', { exact: true }).first().boundingBox()
    check(
      'settings: the basic settings fit in two screens of this 960-pixel window',
      !!advanced && advanced.y <= 2 * 960,
      `${advanced?.y} px`,
    )
    check('settings: no "not installed" warning for memory', !text.includes('此插件尚未安装'))
    // an unset key shows as an empty field, not as dots standing for something
    const keys = await page
      .locator('input[type="password"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))
    check('settings: an unset API key shows an empty field', keys.length > 0 && keys.every((value) => value === ''), JSON.stringify(keys))
    await screenshot(page, 'console-memory-settings.png')
  })

  await driveMemoryPage({ check, step, attempt, screenshot }, { page, base, sandbox, speaker, groupSpeaker, folder })
  return speaker
}

// ── the built-in chat's model ───────────────────────────────────────────────

/** What the chat model was sent, request by request. */
const chatRequests: string[] = []

/** The discussions of a group evolution's request (its user turn is JSON), or undefined for any other call. */
function evolutionDiscussions(messages: { role: string; content: string | null }[]): string[] | undefined {
  try {
    const input = JSON.parse(messages.find((message) => message.role === 'user')?.content ?? '')
    return Array.isArray(input?.new_discussions) ? input.new_discussions.map(String) : undefined
  } catch {
    return undefined
  }
}

/**
 * The scripted model of the e2e, an OpenAI-compatible server on loopback. The built-in chat gets the
 * long-term memories its prompt holds back, so what a user reads in the sandbox is what the memory gave
 * the model. Once it is the memory's own model too (the last phase), a group evolution gets one new
 * memory from the first discussion, and any other call (memorising) finds nothing to keep.
 */
const chatModel = new ScriptedServer((path, body, res) => {
  if (path !== '/chat/completions') return json(res, 404, {})
  const messages = (body.messages ?? []) as { role: string; content: string | null }[]
  const discussions = evolutionDiscussions(messages)
  if (discussions)
    return chat(
      res,
      JSON.stringify({ action: 'create', statement: `群里聊过：${discussions[0]?.slice(0, 40) ?? ''}`, change_reason: '群聊' }),
    )
  if (!messages.some((message) => message.role === 'system' && /友好成员|friendly member/.test(message.content ?? '')))
    return chat(res, '{"facts": []}')
  chatRequests.push(messages.map((message) => message.content ?? '').join('\n'))
  const memories = messages.find(
    (message) => message.role === 'system' && /^(关于用户的长期记忆：|Long-term memories)/.test(message.content ?? ''),
  )
  chat(res, memories ? `我记得：${memories.content!.split('\n').slice(1).join(' ')}` : '我还不知道。')
})

async function askTheChat(sandbox: Sandbox, page: Page, asker: string) {
  await step('the built-in chat answers with memory', async () => {
    const asked = chatRequests.length
    const answer = await sandbox.command(CHAT_QUESTION)
    console.log(`${asker} (group) asked the built-in chat: ${answer.replace(/\n/g, ' ⏎ ')}`)
    const sent = chatRequests.slice(asked).join('\n')
    check('chat: the model was asked once', chatRequests.length - asked === 1, `${chatRequests.length - asked} requests`)
    check(`chat: the model got ${asker}'s trip to 上海`, /上海/.test(sent), sent.slice(0, 300).replace(/\n/g, ' ⏎ '))
    check(
      "chat: the model got nothing of the other user's private chat",
      !PRIVATE_A.facts.some((fact) => fact.pattern.test(sent)),
      PRIVATE_A.facts
        .filter((fact) => fact.pattern.test(sent))
        .map((fact) => fact.name)
        .join(', '),
    )
    check('chat: the answer in the sandbox carries the memory', /上海/.test(answer), answer.replace(/\n/g, ' ⏎ '))
    await screenshot(page, 'sandbox-group-chat-reply.png')
    const trace = await sandbox.command('/memory.trace')
    console.log(`memory.trace:\n  ${trace.replace(/\n/g, '\n  ')}`)
    check(
      'chat: memory.trace shows the five steps of the reply',
      ['route', 'recall', 'retrieve', 'generate', 'persist'].every((node) => trace.includes(node)),
      trace.replace(/\n/g, ' ⏎ '),
    )
    await screenshot(page, 'sandbox-memory-trace.png')
  })
}

/** Points the memory's own model of the app's koishi.yml (as Koishi rewrote it) at the scripted one. */
function useModel(file: string, baseURL: string) {
  const config = yaml.load(readFileSync(file, 'utf8')) as Record<string, unknown>
  const visit = (plugins: Record<string, unknown>): boolean => {
    for (const [key, value] of Object.entries(plugins)) {
      if (!value || typeof value !== 'object') continue
      if (/^memory(:\w+)?$/.test(key)) {
        Object.assign(value, { llm: { provider: 'openai-compatible', baseURL, model: 'scripted', apiKey: '' } })
        return true
      }
      if (key.startsWith('group:') && visit(value as Record<string, unknown>)) return true
    }
    return false
  }
  if (!visit(config.plugins as Record<string, unknown>)) throw new Error(`no memory plugin in ${file}`)
  writeFileSync(file, yaml.dump(config, { lineWidth: 200 }))
}

// ── main ─────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const started = Date.now()
  const root = mkdtempSync(join(tmpdir(), 'koishi-memory-e2e-'))
  const dirs: Dirs = {
    root,
    app: join(root, 'app'),
    home: join(root, 'home'),
    cache: process.env.E2E_CACHE || join(tmpdir(), 'koishi-memory-e2e-cache'),
  }
  ensureDirs(dirs)
  const env = childEnv(dirs)
  console.log(`e2e folder: ${root}`)
  let app: Started | undefined
  let context: BrowserContext | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    console.log(`\n${signal}: stopping`)
    if (app?.child.pid) {
      try {
        process.kill(-app.child.pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
    if (!process.env.E2E_KEEP) rmSync(root, { recursive: true, force: true })
    process.exit(130)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  // whatever happens, the app's process group does not outlive this one
  process.once('exit', () => {
    if (app?.child.pid) {
      try {
        process.kill(-app.child.pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
  })

  try {
    if (!check('Chromium is installed', existsSync(CHROMIUM), CHROMIUM)) return

    const commands = installCommands(readFileSync(join(REPO, 'README.md'), 'utf8'))
    check(
      'README.zh-CN.md gives the same install commands as README.md',
      JSON.stringify(installCommands(readFileSync(join(REPO, 'README.zh-CN.md'), 'utf8'))) === JSON.stringify(commands),
    )
    const { print, tarball } = await step('install as the README says, from a fresh clone', () => install(dirs, env))
    check('the README’s commands made the tarball', existsSync(tarball), tarball)
    printFootprint(print, tarball)
    check('the plugin is installed from the tarball', existsSync(join(dirs.app, 'node_modules/koishi-plugin-memory/lib/index.js')))

    const port = await freePort()
    const example = readFileSync(join(REPO, 'koishi.yml.example'), 'utf8')
    const overrides = yaml.load(readFileSync(join(__dirname, 'overrides.yml'), 'utf8')) as { memory?: Record<string, unknown> }
    const chatModelURL = await chatModel.start()
    const chatOverrides = { chat: { model: { provider: 'openai-compatible', baseURL: chatModelURL, model: 'scripted' } } }
    const { text, databaseKey } = appConfig(example, port, merge(overrides?.memory ?? {}, chatOverrides))
    writeFileSync(join(dirs.app, 'koishi.yml'), text)

    app = await step('start Koishi', () => startApp(dirs, env, port))
    check('the console answers', true, app.base)

    await step('the app log', async () => {
      // the memory plugin logs its missing keys once it runs, after the database
      const deadline = Date.now() + 30_000
      // in the console's language (zh-CN by default): "…没有填写 API 密钥；已改用离线…"
      const fellBack = /\[W\] memory .*(?:没有填写 API 密钥；已改用离线|no API key is filled in; using the offline)/
      // the database creates the memory's tables in the background, after the plugin has started
      const tables = /auto creating table memory_fact|auto updating table memory_fact/
      const ready = () => {
        const log = readFileSync(app!.log, 'utf8')
        return fellBack.test(log) && tables.test(log)
      }
      while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
      const log = readFileSync(app!.log, 'utf8')
      check(`listening on 127.0.0.1:${port}`, log.includes(`server listening at http://127.0.0.1:${port}`))
      check('every plugin resolved', !/cannot resolve plugin/.test(log), /cannot resolve plugin.*/.exec(log)?.[0])
      check(`the database plugin (${databaseKey}) started`, tables.test(log))
      check(
        'without GEMINI_API_KEY memory warns in plain words and runs offline',
        fellBack.test(log),
        log
          .split('\n')
          .filter((line) => / memory /.test(line))
          .join(' | '),
      )
      const errors = log.split('\n').filter((line) => /\[E\]/.test(line) && !fellBack.test(line))
      check('no other errors in the log', errors.length === 0, errors.slice(0, 3).join(' | '))
      check(
        'the database file is inside the app folder',
        existsSync(join(dirs.app, 'koishi.db')) || existsSync(join(dirs.app, 'data/koishi.db')),
      )
      // Koishi rewrites koishi.yml on its first start: no key may appear in it
      const written = readFileSync(join(dirs.app, 'koishi.yml'), 'utf8')
      check('koishi.yml, rewritten by Koishi, holds no key', !/apiKey: (?!'')\S/.test(written), /apiKey: .*/.exec(written)?.[0])
    })

    context = await step('launch Chromium', () => launch(dirs))
    let speaker = ''
    await attempt('the sandbox and console run', async () => void (speaker = await drive(context!, app!.base, dirs.root)))

    await attempt('a stop right after a message loses nothing', () =>
      step('stop right after a message, start again', async () => {
        const page = context!.pages()[0]
        const sandbox = new Sandbox(page, app!.base)
        await sandbox.open()
        await sandbox.selectUser(speaker)
        await sandbox.panel('private')
        await sandbox.say(LAST_WORDS)
        // as Ctrl-C does: Koishi stops its database before the plugin has written the message
        await stopTree(app!.child)
        app = await startApp(dirs, env, port)
        const again = new Sandbox(page, app.base)
        await again.open()
        await again.selectUser(speaker)
        await again.panel('private')
        const deadline = Date.now() + FACTS_TIMEOUT_MS
        let list = ''
        while (Date.now() < deadline && !LAST_FACT.test((list = await again.command('/memory.list')))) await page.waitForTimeout(3000)
        check('a message said just before the stop is memorised after the start', LAST_FACT.test(list), list.replace(/\n/g, ' ⏎ '))
        await screenshot(page, 'sandbox-after-restart.png')
      }),
    )

    await attempt('with a model, a reviewed evolution is approved in the page', () =>
      step('restart with the scripted model as the memory’s own', async () => {
        await stopTree(app!.child)
        useModel(join(dirs.app, 'koishi.yml'), chatModelURL)
        app = await startApp(dirs, env, port)
        await driveModeration({ check, step, attempt, screenshot }, { page: context!.pages()[0], base: app.base })
        await driveBudgets({ check, step, attempt, screenshot }, { page: context!.pages()[0], base: app.base })
      }),
    )
  } catch (error) {
    check('the e2e ran to its end', false, (error as Error).message)
  } finally {
    await context?.close().catch(() => undefined)
    await chatModel.stop()
    if (app) {
      await stopTree(app.child)
      if (failed) console.log(`\nthe end of koishi.log:\n${tail(app.log, 30)}`)
    }
    if (process.env.E2E_KEEP) console.log(`kept ${root}`)
    else rmSync(root, { recursive: true, force: true })
  }

  console.log('\ntimings:')
  for (const [name, ms] of timings) console.log(`  ${seconds(ms).padStart(8)}  ${name}`)
  console.log(`  ${seconds(Date.now() - started).padStart(8)}  in all`)
  if (figures.length) console.log(`\nfigures:\n${figures.map((figure) => `  ${figure}`).join('\n')}`)
  console.log(`\n${passed} passed, ${failed} failed`)
  process.exitCode = failed ? 1 : 0
}

void main()
