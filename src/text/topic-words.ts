import { isAllCjk, normalizeText } from './tokens'

/**
 * Topic words: which words say what a conversation is about, on the CJK-aware segmenter. Function
 * words, pronouns and chat reactions (哈哈 / 确实 / 我也是 / same / lol) never do. Topics, topic
 * summaries and their keyword search share these; retrieval ranks by `terms.ts` instead.
 */

const ZH_STOP = new Set(
  `
的 了 是 在 有 和 就 都 也 还 又 吗 呢 吧 啊 呀 哦 嗯 哈 啦 嘛 么 呗 哇 噢 喔 诶 欸 唉 哎 咋 啥 嘞 咯 哟
我 你 他 她 它 您 咱 我们 你们 他们 她们 它们 咱们 大家 自己 别人 人家 谁
这 那 哪 这个 那个 哪个 这些 那些 哪些 这样 那样 这么 那么 怎么 怎样 怎么样 什么 为什么 为啥 干嘛 多少 几个
这里 那里 哪里 这儿 那儿 哪儿 这边 那边
一个 一下 一些 一点 一直 一起 一样 有点 有些 没有 不是 就是 还是 可是 但是 而且 所以 因为 如果 然后 或者 不过 只是 虽然
不 没 别 很 太 好 挺 真 最 更 再 才 刚 刚才 已经 正在 马上 可能 应该 需要 必须 可以 能 会 要 想 得 让 把 被 给 跟 对 从 向 往 到 去 来 说 看 做 用 上 下 里 中 后 前
觉得 知道 感觉 认为 以为 好像 似乎 其实 反正 确实 真的 果然 当然 估计 难道 到底 简直
哈哈 哈哈哈 嘿嘿 呵呵 嘻嘻 笑死 草 卧槽 我靠 牛逼 厉害 好家伙 无语 离谱 绝了 羡慕 恭喜 加油 同意 赞同 附议 是的 对的 对啊 是啊 好的 好吧 行吧 可以的 没错 有道理
现在 时候 问题 记得 最好 有人 想去 一起去 打算 之间 不少 正好 这周 那我 我再 会不会 能不能 要不要 是不是 有没有
个 张 台 只 条 件 块 次 些 位 种 本 份 点 下
我也是 我也 也是 是吗 真的吗 怎么了 然后呢 不会吧 不知道 知道了 收到 明白 懂了 谢谢 感谢 辛苦 晚安 早安 早上好 你好 在吗
`
    .split(/\s+/)
    .filter(Boolean),
)

const EN_STOP = new Set(
  `
a an the and or but if then so than that this these those there here what which who whom whose when where why how
i me my mine we us our ours you your yours he him his she her hers it its they them their theirs one ones
am is are was were be been being do does did done doing have has had having will would shall should can could may might must
not no nor yes yeah yep yup ok okay sure right really very just also too only even still already again ever never
to of in on at by for with about from into onto over under up down out off as like than
i'm i've i'll i'd you're you've you'll he's she's it's we're we've they're they've that's there's what's let's don't doesn't didn't isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't
get got go going gone went come came make made say said tell told think thought know knew see saw want wanted need
thing things stuff something anything nothing everything someone anyone lot lots much many more most some any all both each every other another
lol lmao haha hehe wow oh ah hmm omg same agreed agree true exactly indeed totally definitely nice cool great awesome thanks thank please sorry congrats
now today yesterday tomorrow soon later time well back way good bad
`
    .split(/\s+/)
    .filter(Boolean),
)

const NUMBER_SLANG = /^(?:6{3,}|2333*|520|1314|886|555+|999+)$/

// the segmenter `words()` uses (see text/tokens): one for the process
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' })

function isStop(word: string, cjk: boolean): boolean {
  if (/^\p{N}+$/u.test(word)) return word.length < 3 || NUMBER_SLANG.test(word)
  return cjk ? ZH_STOP.has(word) : word.length < 3 || EN_STOP.has(word)
}

interface Piece {
  text: string
  cjk: boolean
  stop: boolean
  /** Directly follows the previous word-like piece (no space or punctuation between). */
  adjacent: boolean
}

function pieces(text: string): Piece[] {
  const out: Piece[] = []
  let end = -1
  for (const s of segmenter.segment(normalizeText(text))) {
    if (!s.isWordLike) continue
    const cjk = isAllCjk(s.segment)
    out.push({ text: s.segment, cjk, stop: isStop(s.segment, cjk), adjacent: s.index === end })
    end = s.index + s.segment.length
  }
  return out
}

/**
 * Words that say what a text is about, in order, repeats kept: no stop words or short numbers.
 * The segmenter leaves words it does not know as single characters (显卡 → 显 / 卡), so adjacent
 * single CJK characters that are not stop words are joined back into one word; a lone single
 * character is dropped.
 */
export function contentWords(text: string): string[] {
  const out: string[] = []
  let run = ''
  const close = () => {
    if ([...run].length >= 2) out.push(run)
    run = ''
  }
  for (const piece of pieces(text)) {
    const single = piece.cjk && [...piece.text].length === 1
    if (!single || piece.stop || !piece.adjacent) close()
    if (piece.stop) continue
    if (single) run += piece.text
    else out.push(piece.text)
  }
  close()
  return out
}

/**
 * The text with its stop words blanked out, CJK runs otherwise kept together ("配这张显卡会不会有瓶颈"
 * → "配 张显卡 瓶颈"), for a lexical embedder: its character n-grams then come from what the
 * message is about, not from 我 / 的 / the / and that every chat line shares.
 */
export function topicText(text: string): string {
  let out = ''
  for (const piece of pieces(text)) {
    if (piece.stop) {
      out += ' '
      continue
    }
    out += piece.cjk && piece.adjacent && out && !out.endsWith(' ') ? piece.text : ` ${piece.text}`
  }
  return out.replace(/\s+/g, ' ').trim()
}
