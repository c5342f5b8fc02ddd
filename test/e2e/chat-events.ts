// A message recalled in the chat, as the console's sandbox does it: its context menu's 「删除消息」 sends
// `sandbox/delete-message`, which the sandbox turns into Koishi's `message-deleted`. The fact the message
// stated must leave `memory.list` and a recall. (The sandbox cannot edit a message: `message-updated` is
// tested through the mock adapter, test/integration/chat-events.test.ts.)
import type { Sandbox } from './sandbox'

const SAID = '我养了一只仓鼠，叫团子'
const FACT = /团子|仓鼠|hamster/i
const TRIES = 8

type Check = (name: string, ok: boolean, detail?: string) => boolean
type Screenshot = (page: Sandbox['page'], name: string) => Promise<void>

/**
 * As `user` in their private chat: says a fact, waits for it in `memory.list`, deletes the message, and checks
 * it is gone. A step that cannot be done is a failed check, and the run goes on.
 */
export async function recallFromSandbox(sandbox: Sandbox, user: string, check: Check, screenshot: Screenshot): Promise<void> {
  try {
    await recall(sandbox, user, check, screenshot)
  } catch (error) {
    check(`${user}, private: a message deleted in the sandbox`, false, (error as Error).message.split('\n')[0])
    await sandbox.page.keyboard.press('Escape')
  }
}

async function recall(sandbox: Sandbox, user: string, check: Check, screenshot: Screenshot): Promise<void> {
  const { page } = sandbox
  await sandbox.selectUser(user)
  await sandbox.panel('private')
  await sandbox.say(SAID)
  // memorised now rather than after the quiet time (the e2e's users may run memory.flush: overrides.yml)
  await sandbox.command('/memory.flush')
  let list = await sandbox.command('/memory.list')
  if (!check(`${user}, private: the fact of "${SAID}" is remembered before the recall`, FACT.test(list), oneLine(list))) return

  const message = page.locator('.page-sandbox .chat-message').filter({
    has: page.locator('.nickname', { hasText: new RegExp(`^\\s*${user}\\s*$`) }),
    hasText: SAID,
  })
  // the sandbox opens a message's menu on its bubble, not on the whole row
  await message.last().locator('.message-box').click({ button: 'right', timeout: 15_000 })
  await page.locator('.k-menu .k-menu-item', { hasText: '删除消息' }).click({ timeout: 15_000 })

  for (let i = 0; i < TRIES && FACT.test(list); i++) {
    await page.waitForTimeout(1000)
    list = await sandbox.command('/memory.list')
  }
  check(`${user}, private: a recalled message's fact leaves memory.list`, !FACT.test(list), oneLine(list))
  const recalled = await sandbox.command('/memory.recall 我的仓鼠叫什么名字？')
  check(`${user}, private: memory.recall finds the recalled message no more`, !/团子/.test(recalled), oneLine(recalled))
  await screenshot(page, 'sandbox-recalled.png')
}

function oneLine(text: string): string {
  return text.replace(/\n/g, ' ⏎ ')
}
