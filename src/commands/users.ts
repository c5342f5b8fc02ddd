import type { Session } from 'koishi'
import { h } from 'koishi'

/** The target of `-u`: an @-mention, `platform:id`, or a bare id on the caller's platform. */
export function parseUser(session: Session, target: string) {
  const [at] = h.select(h.parse(target), 'at')
  if (at?.attrs.id) return { platform: session.platform, userId: String(at.attrs.id) }
  const split = target.indexOf(':')
  return split > 0 ? { platform: target.slice(0, split), userId: target.slice(split + 1) } : { platform: session.platform, userId: target }
}
