/**
 * Deterministic synthetic long-term facts for latency benchmarks: third-person statements in Chinese
 * and English built from templates and word lists, spread over many users on two platforms. The texts
 * look like what the memorize chain stores ("小明喜欢吃四川火锅", "Alice works as a nurse in Leeds"),
 * so full-text and lexical-vector search see realistic token statistics.
 */

/** A small seeded PRNG (mulberry32), so every run generates the same corpus. */
export function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ZH_NAMES = [
  '小明',
  '小红',
  '阿强',
  '王芳',
  '李雷',
  '韩梅梅',
  '张伟',
  '刘洋',
  '陈静',
  '赵磊',
  '孙悦',
  '周杰',
  '吴敏',
  '郑浩',
  '冯雪',
  '老王',
  '小李',
  '阿杰',
  '晓燕',
  '大鹏',
]
const EN_NAMES = [
  'Alice',
  'Bob',
  'Carol',
  'Dave',
  'Erin',
  'Frank',
  'Grace',
  'Heidi',
  'Ivan',
  'Judy',
  'Mallory',
  'Niaj',
  'Olivia',
  'Peggy',
  'Rupert',
  'Sybil',
  'Trent',
  'Victor',
  'Walter',
  'Yuki',
]

/** Word lists the templates fill in (the chat generator of bench/synthetic-chat.ts says them too). */
export const ZH = {
  food: [
    '四川火锅',
    '北京烤鸭',
    '兰州拉面',
    '麻辣烫',
    '小笼包',
    '煎饼果子',
    '螺蛳粉',
    '寿司',
    '披萨',
    '牛肉面',
    '酸菜鱼',
    '饺子',
    '烧烤',
    '肠粉',
    '热干面',
  ],
  city: ['北京', '上海', '成都', '杭州', '深圳', '广州', '武汉', '西安', '南京', '重庆', '长沙', '厦门', '青岛', '苏州', '昆明'],
  job: [
    '程序员',
    '护士',
    '老师',
    '设计师',
    '医生',
    '会计',
    '厨师',
    '律师',
    '摄影师',
    '产品经理',
    '学生',
    '记者',
    '工程师',
    '销售',
    '研究员',
  ],
  hobby: [
    '打篮球',
    '弹吉他',
    '爬山',
    '看动漫',
    '打游戏',
    '钓鱼',
    '跑步',
    '画画',
    '下围棋',
    '养花',
    '拍照',
    '游泳',
    '读小说',
    '追剧',
    '骑自行车',
  ],
  pet: ['一只橘猫', '一条柯基', '两只仓鼠', '一只鹦鹉', '一缸金鱼', '一只布偶猫', '一条金毛', '一只乌龟'],
  relation: ['妹妹', '哥哥', '女朋友', '男朋友', '室友', '同事', '表弟', '奶奶'],
  thing: ['咖啡', '香菜', '辣椒', '牛奶', '花生', '海鲜', '芒果', '榴莲'],
  month: ['一月', '三月', '五月', '七月', '九月', '十一月', '十二月'],
  game: ['原神', '王者荣耀', '我的世界', '英雄联盟', '塞尔达传说', '星露谷物语'],
}
export const EN = {
  food: [
    'spicy ramen',
    'pepperoni pizza',
    'sushi',
    'Thai green curry',
    'fish and chips',
    'tacos',
    'pho',
    'dim sum',
    'lasagna',
    'falafel',
    'bibimbap',
    'pad thai',
    'cheesecake',
    'croissants',
    'dumplings',
  ],
  city: [
    'London',
    'Leeds',
    'Berlin',
    'Toronto',
    'Seattle',
    'Sydney',
    'Dublin',
    'Boston',
    'Lisbon',
    'Austin',
    'Osaka',
    'Vienna',
    'Denver',
    'Oslo',
    'Madrid',
  ],
  job: [
    'nurse',
    'software engineer',
    'teacher',
    'graphic designer',
    'doctor',
    'accountant',
    'chef',
    'lawyer',
    'photographer',
    'product manager',
    'student',
    'journalist',
    'electrician',
    'barista',
    'researcher',
  ],
  hobby: [
    'rock climbing',
    'playing guitar',
    'hiking',
    'watching anime',
    'playing chess',
    'fishing',
    'running marathons',
    'painting',
    'baking bread',
    'gardening',
    'birdwatching',
    'swimming',
    'reading mystery novels',
    'knitting',
    'cycling',
  ],
  pet: [
    'a ginger cat',
    'a corgi',
    'two hamsters',
    'a parrot',
    'a tank of goldfish',
    'a golden retriever',
    'a tortoise',
    'a rescue greyhound',
  ],
  relation: ['sister', 'brother', 'girlfriend', 'boyfriend', 'roommate', 'colleague', 'cousin', 'grandmother'],
  thing: ['coffee', 'cilantro', 'peanuts', 'shellfish', 'milk', 'mangoes', 'gluten', 'cats'],
  month: ['January', 'March', 'May', 'July', 'September', 'November', 'December'],
  game: ['Minecraft', 'Zelda', 'Stardew Valley', 'Elden Ring', 'League of Legends', 'Tetris'],
}

/** Qualifiers appended to about half the facts, so texts (and vectors) are not exact duplicates. */
const ZH_TAILS = [
  '，已经好几年了',
  '，上个月刚提到',
  '，朋友们都知道',
  '，这是去年的事',
  '，说是从小就这样',
  '，前几天在群里说的',
  '，每周至少一次',
  '，和家里人一起',
]
const EN_TAILS = [
  ' since 2019',
  ', as mentioned last month',
  ', which all their friends know',
  ' since last year',
  ' ever since childhood',
  ', said in the group chat recently',
  ' at least once a week',
  ' with their family',
]

export type Words = typeof ZH
type Template = (name: string, w: Words, pick: <T>(xs: T[]) => T) => string

const ZH_TEMPLATES: Template[] = [
  (n, w, p) => `${n}喜欢吃${p(w.food)}`,
  (n, w, p) => `${n}住在${p(w.city)}`,
  (n, w, p) => `${n}是一名${p(w.job)}`,
  (n, w, p) => `${n}周末经常去${p(w.hobby)}`,
  (n, w, p) => `${n}养了${p(w.pet)}`,
  (n, w, p) => `${n}对${p(w.thing)}过敏`,
  (n, w, p) => `${n}的生日在${p(w.month)}`,
  (n, w, p) => `${n}最近在玩${p(w.game)}`,
  (n, w, p) => `${n}的${p(w.relation)}在${p(w.city)}工作`,
  (n, w, p) => `${n}不喜欢${p(w.thing)}`,
  (n, w, p) => `${n}打算明年搬去${p(w.city)}`,
  (n, w, p) => `${n}以前在${p(w.city)}当${p(w.job)}`,
]
const EN_TEMPLATES: Template[] = [
  (n, w, p) => `${n} loves ${p(w.food)}`,
  (n, w, p) => `${n} lives in ${p(w.city)}`,
  (n, w, p) => `${n} works as a ${p(w.job)}`,
  (n, w, p) => `${n} spends weekends ${p(w.hobby)}`,
  (n, w, p) => `${n} has ${p(w.pet)}`,
  (n, w, p) => `${n} is allergic to ${p(w.thing)}`,
  (n, w, p) => `${n}'s birthday is in ${p(w.month)}`,
  (n, w, p) => `${n} has been playing ${p(w.game)} lately`,
  (n, w, p) => `${n}'s ${p(w.relation)} works in ${p(w.city)}`,
  (n, w, p) => `${n} can't stand ${p(w.thing)}`,
  (n, w, p) => `${n} plans to move to ${p(w.city)} next year`,
  (n, w, p) => `${n} used to be a ${p(w.job)} in ${p(w.city)}`,
]
const ZH_QUERIES: Template[] = [
  (n, w, p) => `${n}喜欢吃什么？${p(w.food)}怎么样`,
  (n) => `${n}住在哪里`,
  (n) => `${n}是做什么工作的`,
  (n, w, p) => `${n}周末去${p(w.hobby)}吗`,
  (n) => `${n}养宠物了吗`,
  (n, w, p) => `${n}能吃${p(w.thing)}吗`,
  (n) => `${n}生日是几月`,
]
const EN_QUERIES: Template[] = [
  (n, w, p) => `what food does ${n} like? maybe ${p(w.food)}`,
  (n) => `where does ${n} live`,
  (n) => `what is ${n}'s job`,
  (n, w, p) => `does ${n} enjoy ${p(w.hobby)}`,
  (n) => `does ${n} have any pets`,
  (n, w, p) => `can ${n} eat ${p(w.thing)}`,
  (n) => `when is ${n}'s birthday`,
]

export interface SyntheticUser {
  platform: string
  userId: string
  name: string
  zh: boolean
}

export interface SyntheticFact {
  id: string
  text: string
  platform: string
  user_id: string
  guild_id: string
  channel_id: string
  created_at: number
}

export function makeUsers(count: number, seed = 1): SyntheticUser[] {
  const random = rng(seed)
  const users: SyntheticUser[] = []
  for (let i = 0; i < count; i++) {
    const zh = random() < 0.6
    const names = zh ? ZH_NAMES : EN_NAMES
    const platform = i % 2 ? 'discord' : 'onebot'
    // QQ numbers on onebot, 18-digit snowflakes on discord; distinct for every i
    const userId = platform === 'onebot' ? String(10_000_000 + i * 7919) : String(700_000_000_000_000_000n + BigInt(i) * 104_729n)
    users.push({ platform, userId, name: names[i % names.length], zh })
  }
  return users
}

/** `count` facts: facts i and i + users.length belong to the same user; ~15 % are in the other language. */
export function* makeFacts(users: SyntheticUser[], count: number, seed = 2, start = 0): Generator<SyntheticFact> {
  const random = rng(seed + start)
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
  const t0 = Date.UTC(2025, 0, 1)
  for (let i = start; i < start + count; i++) {
    const user = users[i % users.length]
    const zh = random() < 0.15 ? !user.zh : user.zh
    const template = pick(zh ? ZH_TEMPLATES : EN_TEMPLATES)
    const guild = random() < 0.3 ? '' : `g${(i * 31) % 40}`
    yield {
      id: `fact-${i}`,
      text: template(user.name, (zh ? ZH : EN) as Words, pick) + (random() < 0.5 ? pick(zh ? ZH_TAILS : EN_TAILS) : ''),
      platform: user.platform,
      user_id: user.userId,
      guild_id: guild,
      channel_id: guild ? `c${(i * 17) % 120}` : `private:${user.userId}`,
      created_at: t0 + i * 60_000,
    }
  }
}

/** A question about `user`, in the user's language, as a reply generator would pass it. */
export function makeQuery(user: SyntheticUser, random: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
  const template = pick(user.zh ? ZH_QUERIES : EN_QUERIES)
  return template(user.name, (user.zh ? ZH : EN) as Words, pick)
}
