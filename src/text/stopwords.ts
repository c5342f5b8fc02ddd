/**
 * Function words of English and Chinese: words that say how a sentence is built rather than what it
 * is about, question words among them (what / where / 什么 / 哪里: a question's words for what it asks
 * are never in the answer). Keyword extraction drops them. Lists are lowercase and NFKC, as `words()` returns them;
 * Chinese entries are the units the segmenters produce (我们, 什么, 一下 …).
 */

const EN = `
a about above after again against ago all almost also although always am among an and another any anybody
anyone anything anyway anyways are aren't around as at away back be became because become been before
being below beside besides between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't done down during each either else enough even ever every everybody everyone everything few
for from further get gets getting got gotten had hadn't has hasn't have haven't having he he'd he'll he's
her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it
it'd it'll it's its itself just kind let let's like likely lot lots made make makes many may maybe me might
mine more most much must mustn't my myself near need needs neither never no nobody none nor not nothing
now of off often oh ok okay on once one ones only onto or other others otherwise ought our ours ourselves
out over own per perhaps please quite rather re really said same say says see seem seems seen shall
shan't she she'd she'll she's should shouldn't since so some somebody someone something sometimes
somewhat soon still such sure than that that's the their theirs them themselves then there there's these
they they'd they'll they're they've thing things this those though through thus till to too toward towards
u under until up upon us very via was wasn't we we'd we'll we're we've well were weren't what what's
whatever when when's whenever where where's whereas wherever whether which while who who's whoever whole
whom whose why why's will with within without won't would wouldn't yeah yes yet you you'd you'll you're
you've your yours yourself yourselves
hey hi hello haha hahaha lol wow ah um uh hmm yep yup nope gonna wanna gotta
`

const ZH = `
的 了 着 过 地 得 之 所 而 且 或 与 及 和 跟 同 并 但 却 就 才 也 还 都 又 再 很 太 更 最 挺 蛮 非常 特别 十分 比较
是 不是 有 没有 没 不 别 在 于 对 向 从 自 到 把 被 给 让 将 为 为了 因为 所以 如果 虽然 但是 然后 而且 或者 还是
可是 不过 只是 只要 只有 除了 关于 对于 按照 根据 通过 随着 以及 以 其 此 这 那 哪 这个 那个 哪个 这些 那些
这样 那样 怎样 这么 那么 怎么 怎么样 什么 什么样 为什么 为啥 啥 咋 咋样 如何 干嘛 干啥 谁 几 多少 哪里 哪儿 哪些 吗 呢 吧 啊 呀 哦 嗯 哈 哈哈 嘛 啦 呗 么 哇 哎 唉 诶
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 大家 自己 人家 别人 某 各 每 一些 一点 一下 一个 一样 一起 一直
个 些 点 下 上 里 中 内 外 前 后 来 去 说 想 要 会 能 可以 应该 可能 觉得 知道 看 看看 做 弄 搞 让 使 用
已经 正在 曾经 刚 刚才 马上 总是 一般 其实 真的 当然 好像 似乎 大概 也许 或许 确实 简直 居然 竟然 反正
然而 于是 因此 那就 就是 还有 比如 例如 等 等等 之类 之后 之前 以后 以前 时候 的话 一 二 两 好 对 嗯嗯
`

/** Question words: what a question asks for, never what its answer says. All are stopwords too. */
const QUESTION = `
what when where which who whom whose why how
什么 什么样 为什么 为啥 啥 咋 咋样 怎么 怎么样 怎样 如何 干嘛 干啥 哪 哪里 哪儿 哪些 哪个 谁 几 多少
`

const QUESTION_WORDS: ReadonlySet<string> = new Set(QUESTION.split(/\s+/).filter(Boolean))

const STOPWORDS: ReadonlySet<string> = new Set([...EN.split(/\s+/), ...ZH.split(/\s+/), ...QUESTION_WORDS].filter(Boolean))

/** True for a question word of English or Chinese (already lowercased and NFKC-normalised). */
export function isQuestionWord(word: string): boolean {
  return QUESTION_WORDS.has(word)
}

/** True for an English or Chinese function word (already lowercased and NFKC-normalised). */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word)
}
