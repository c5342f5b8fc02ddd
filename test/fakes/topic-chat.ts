/**
 * A realistic Chinese group chat with two conversations going on at once: weekend hiking (A) and
 * building a PC (B). Used by the attribution tests.
 */
export interface ChatLine {
  thread: 'A' | 'B'
  userId: string
  content: string
}

export const HIKING: ChatLine[] = [
  { thread: 'A', userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶' },
  { thread: 'A', userId: '阿杰', content: '香山的红叶这周正好，算我一个' },
  { thread: 'A', userId: '小王', content: '那周六早上七点半西苑地铁站集合，早点去爬山人少' },
  { thread: 'A', userId: '阿杰', content: '七点半有点早啊，不过红叶季香山人确实多' },
  { thread: 'A', userId: '小王', content: '记得穿双好走的鞋，香山有几段路挺陡的' },
  { thread: 'A', userId: '阿杰', content: '好，那我带点水和面包，爬山累了路上吃' },
]

export const PC_BUILD: ChatLine[] = [
  { thread: 'B', userId: '老李', content: '我打算装台新电脑，显卡在4070和4070 Super之间纠结' },
  { thread: 'B', userId: '小陈', content: '预算够就上4070 Super，显卡性能高不少' },
  { thread: 'B', userId: '老李', content: '那我现在这个550W的电源带得动4070 Super吗' },
  { thread: 'B', userId: '小陈', content: '550W带4070 Super偏紧，电源最好换成750W的' },
  { thread: 'B', userId: '老李', content: 'CPU是13600K，配这张显卡会不会有瓶颈' },
  { thread: 'B', userId: '小陈', content: '13600K配4070 Super没问题，装机的时候注意散热就行' },
]

/** A1 B1 A2 B2 …: the two conversations alternating line by line. */
export function alternating(a: ChatLine[] = HIKING, b: ChatLine[] = PC_BUILD): ChatLine[] {
  const out: ChatLine[] = []
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i]) out.push(a[i])
    if (b[i]) out.push(b[i])
  }
  return out
}
