/**
 * A labelled set of chat lines for measuring the offline judge (`rule-judge-measure.test.ts`): what a
 * user says to a bot in private or in a group, in Chinese and English. `fact` lines state something
 * about the speaker worth keeping (each category the judge is meant to know, in several phrasings);
 * `noise` lines are small talk, questions, greetings, acknowledgements, opinions, requests to the bot
 * and remarks about the weather or the news, which must stay out. Written for this purpose, not taken
 * from a benchmark.
 */

export type FactCategory =
  | 'pet'
  | 'hobby'
  | 'learning'
  | 'family'
  | 'relationship'
  | 'job'
  | 'school'
  | 'home'
  | 'travel'
  | 'plan'
  | 'health'
  | 'preference'
  | 'possession'
  | 'birthday'
  | 'identity'

export interface LabelledLine {
  text: string
  fact: boolean
  category?: FactCategory
}

const fact = (category: FactCategory, text: string): LabelledLine => ({ text, fact: true, category })
const noise = (text: string): LabelledLine => ({ text, fact: false })

export const ZH_LINES: LabelledLine[] = [
  // pets
  fact('pet', '我养了一只柯基，叫豆豆'),
  fact('pet', '我家有两只猫'),
  fact('pet', '我家狗狗叫旺财，今年五岁了'),
  fact('pet', '最近刚领养了一只橘猫'),
  fact('pet', '我的仓鼠昨天生病了'),
  // hobbies and learning
  fact('learning', '我最近在学吉他'),
  fact('learning', '我在自学日语，准备考N2'),
  fact('learning', '这学期我报了个游泳班'),
  fact('hobby', '我平时喜欢打羽毛球'),
  fact('hobby', '周末我一般去钓鱼'),
  fact('hobby', '我是个资深的原神玩家'),
  fact('hobby', '我每天晚上都会跑五公里'),
  fact('hobby', '我特别爱看科幻小说'),
  // family and relationships
  fact('family', '我有一个妹妹，在读高中'),
  fact('family', '我妈是护士'),
  fact('family', '我爸下个月退休'),
  fact('family', '我儿子今年上小学一年级'),
  fact('relationship', '我女朋友叫小雨'),
  fact('relationship', '我和老婆结婚五年了'),
  fact('relationship', '我最好的朋友在深圳工作'),
  fact('relationship', '我上个月和男朋友分手了'),
  // job and school
  fact('job', '我是一名大学老师'),
  fact('job', '我在字节做后端开发'),
  fact('job', '我刚换了工作，现在做产品经理'),
  fact('job', '我在医院当护士'),
  fact('school', '我在浙大读研'),
  fact('school', '我是大三的学生，学的是计算机'),
  fact('school', '我明年六月毕业'),
  // where one lives or goes
  fact('home', '我住在成都'),
  fact('home', '我老家是湖南的'),
  fact('home', '我下个月搬到杭州'),
  fact('travel', '我下个月要去日本旅游'),
  fact('travel', '我下周三要去上海出差'),
  fact('travel', '国庆我打算回老家'),
  // plans and dates
  fact('plan', '我周六要考驾照科目二'),
  fact('plan', '明天下午我有个面试'),
  fact('plan', '我打算明年考研'),
  fact('plan', '我们周末约了去爬山'),
  // health
  fact('health', '我对花生过敏'),
  fact('health', '我有乳糖不耐受'),
  fact('health', '我最近在减肥，晚上不吃饭'),
  fact('health', '我上周做了个阑尾手术'),
  fact('health', '我近视八百度'),
  // likes and dislikes
  fact('preference', '我喜欢吃四川火锅'),
  fact('preference', '我不吃香菜'),
  fact('preference', '我最爱喝冰美式'),
  fact('preference', '我讨厌下雨天出门'),
  fact('preference', '我最喜欢的歌手是周杰伦'),
  fact('preference', '我受不了太甜的东西'),
  // possessions
  fact('possession', '我买了一辆特斯拉'),
  fact('possession', '我有一台MacBook Pro'),
  fact('possession', '我刚入手了一台Switch'),
  // birthdays and identity
  fact('birthday', '我的生日是3月5日'),
  fact('birthday', '我生日在十月'),
  fact('birthday', '下周三是我女朋友的生日'),
  fact('identity', '我叫小明'),
  fact('identity', '我今年28岁'),
  fact('identity', '我是四川人'),
  fact('identity', '我是左撇子'),

  // small talk, questions, greetings, acknowledgements, opinions
  noise('哈哈哈哈'),
  noise('好的，谢谢'),
  noise('早上好'),
  noise('晚安啦'),
  noise('在吗'),
  noise('今天天气真好'),
  noise('外面好冷啊'),
  noise('今天好热'),
  noise('这个电影还不错'),
  noise('我觉得还行吧'),
  noise('我也是'),
  noise('我知道了'),
  noise('我不知道'),
  noise('我明白你的意思'),
  noise('我同意'),
  noise('你喜欢吃什么？'),
  noise('你叫什么名字'),
  noise('我的生日是哪天？'),
  noise('你还记得我喜欢什么吗'),
  noise('明天会下雨吗'),
  noise('周末有什么好玩的推荐吗'),
  noise('帮我写一首关于春天的诗'),
  noise('给我讲个笑话'),
  noise('翻译一下这句话'),
  noise('你觉得呢'),
  noise('太好笑了吧'),
  noise('确实是这样'),
  noise('这个问题好难'),
  noise('刚才那个回答不对'),
  noise('我是说你刚才那个回答'),
  noise('我的天哪'),
  noise('我去，真的假的'),
  noise('股市今天又跌了'),
  noise('听说明天有台风'),
  noise('杭州最近的房价涨了好多'),
  noise('这家店的火锅很好吃'),
  noise('我想问一下怎么用这个功能'),
  noise('我的生日'),
  noise('你是机器人吗'),
  noise('你好呀'),
]

export const EN_LINES: LabelledLine[] = [
  // pets
  fact('pet', 'I have a golden retriever named Max'),
  fact('pet', 'My cat is called Luna'),
  fact('pet', "I've got two rabbits at home"),
  fact('pet', 'We just adopted a puppy'),
  // hobbies and learning
  fact('learning', 'I am learning the guitar'),
  fact('learning', "I'm taking Spanish classes on Tuesdays"),
  fact('learning', 'I started learning to code last month'),
  fact('hobby', 'I play tennis every weekend'),
  fact('hobby', 'I really enjoy baking bread'),
  fact('hobby', "I'm into rock climbing these days"),
  fact('hobby', 'I collect vinyl records'),
  // family and relationships
  fact('family', 'My sister lives in Berlin'),
  fact('family', 'I have two kids, a boy and a girl'),
  fact('family', 'My dad is a retired firefighter'),
  fact('relationship', 'My wife is a doctor'),
  fact('relationship', "I'm getting married next June"),
  fact('relationship', 'My best friend Tom is moving to Canada'),
  // job and school
  fact('job', 'I work as a nurse at a children’s hospital'),
  fact('job', "I'm a software engineer at a startup"),
  fact('job', 'I just got promoted to team lead'),
  fact('school', 'I study biology at UCLA'),
  fact('school', "I'm in my second year of college"),
  fact('school', 'I graduate in May'),
  // where one lives or goes
  fact('home', 'I live in Seattle'),
  fact('home', "I'm from a small town in Ohio"),
  fact('home', 'We moved to Austin last year'),
  fact('travel', "I'm going to Tokyo next September"),
  fact('travel', 'I fly to London on Friday'),
  // plans and dates
  fact('plan', 'I have a job interview tomorrow'),
  fact('plan', "I'm running a marathon in April"),
  fact('plan', "I'm planning to buy a house next year"),
  fact('plan', 'I have a dentist appointment next Monday'),
  // health
  fact('health', "I'm allergic to peanuts"),
  fact('health', 'I have asthma'),
  fact('health', "I'm lactose intolerant"),
  fact('health', "I broke my arm last week, so I can't type much"),
  // likes and dislikes
  fact('preference', 'I love spicy food'),
  fact('preference', "I don't eat pork"),
  fact('preference', 'I hate horror movies'),
  fact('preference', 'My favorite band is Radiohead'),
  fact('preference', 'I prefer tea over coffee'),
  fact('preference', "I'm vegetarian"),
  // possessions
  fact('possession', 'I drive a Honda Civic'),
  fact('possession', 'I just bought a new camera'),
  fact('possession', 'I own a small apartment downtown'),
  // birthdays and identity
  fact('birthday', 'My birthday is on March 5th'),
  fact('birthday', "My mom's birthday is next Tuesday"),
  fact('identity', 'My name is Alice'),
  fact('identity', "I'm 34 years old"),
  fact('identity', "I'm left-handed"),

  // small talk, questions, greetings, acknowledgements, opinions
  noise('ok'),
  noise('thanks!'),
  noise('lol'),
  noise('good morning'),
  noise('hey there'),
  noise('good night'),
  noise("it's so hot today"),
  noise('the weather is lovely'),
  noise('looks like rain again'),
  noise('that movie was great'),
  noise('I think so too'),
  noise('I agree'),
  noise('I see'),
  noise("I'm not sure"),
  noise("I don't know"),
  noise('I guess that makes sense'),
  noise("I'm just kidding"),
  noise('What is my name?'),
  noise("what's my birthday"),
  noise('Do you remember what I like?'),
  noise('can you tell me a joke'),
  noise('write a poem about the sea'),
  noise('Translate this into French'),
  noise('How do I reset my password?'),
  noise('what do you think'),
  noise('that is hilarious'),
  noise('fair enough'),
  noise('The stock market crashed again'),
  noise('apparently there will be a storm tomorrow'),
  noise('This restaurant is really good'),
  noise('Are you a bot?'),
  noise('Wait, what?'),
  noise('I mean your last answer'),
  noise('Sounds good to me'),
  noise('no worries'),
]

/**
 * A second batch, written after the rules were tuned on the lines above: harder noise (what the
 * speaker is doing right now, moods, first-person remarks that name no lasting fact) and facts in
 * phrasings the first batch does not use. Measured untuned first (zh recall 0.75, rejection 0.95; en
 * recall 0.70, rejection 0.90), then the rules were widened on it, so it is part of the tuning set now.
 */
export const ZH_FRESH: LabelledLine[] = [
  fact('pet', '家里那只布偶猫已经三岁了，是我的宝贝'),
  fact('pet', '我养的鹦鹉会说你好'),
  fact('learning', '我报名了一个Python的网课'),
  fact('learning', '这半年我一直在练书法'),
  fact('hobby', '我特别喜欢徒步，去年走完了武功山'),
  fact('family', '我有个双胞胎哥哥'),
  fact('family', '我奶奶今年九十岁了'),
  fact('relationship', '我跟女朋友在一起三年了'),
  fact('job', '我是做外贸的'),
  fact('job', '我在一家银行上班'),
  fact('school', '我今年高三，马上要高考了'),
  fact('home', '我在北京住了十年'),
  fact('travel', '我后天飞三亚'),
  fact('plan', '我下周五有个答辩'),
  fact('health', '我有高血压，不能吃太咸'),
  fact('health', '我对猫毛过敏'),
  fact('preference', '我从来不喝咖啡'),
  fact('preference', '我比较喜欢安静的地方'),
  fact('possession', '我家有一台钢琴'),
  fact('birthday', '我生日是腊月初八'),
  noise('我刚吃完饭'),
  noise('我在路上了，马上到'),
  noise('我今天好累啊'),
  noise('我快饿死了'),
  noise('我笑死了哈哈哈'),
  noise('我先去洗个澡'),
  noise('我马上回来'),
  noise('我也想知道'),
  noise('我刚看到你的消息'),
  noise('我不太懂你说的'),
  noise('你说得对'),
  noise('这个好可爱'),
  noise('周末愉快'),
  noise('明天见'),
  noise('我喜欢你的回答'),
  noise('我有一个问题'),
  noise('我想听首歌'),
  noise('我要睡觉了'),
  noise('那我们明天再聊'),
  noise('哪里有好吃的火锅'),
]

export const EN_FRESH: LabelledLine[] = [
  fact('pet', 'Our beagle Charlie turns ten next month'),
  fact('pet', 'I feed my two cats every morning at six'),
  fact('learning', "I've been taking piano lessons since January"),
  fact('learning', "I'm studying for the bar exam"),
  fact('hobby', 'I go fishing with my uncle most Sundays'),
  fact('family', 'My brother just had a baby girl'),
  fact('family', 'I grew up with three older sisters'),
  fact('relationship', 'My girlfriend and I have been together for five years'),
  fact('job', 'I teach math at a high school'),
  fact('job', "I'm a freelance graphic designer"),
  fact('school', "I'm doing a master's in economics"),
  fact('home', 'I just moved into a new apartment in Brooklyn'),
  fact('travel', "I'm visiting my parents in Texas for Thanksgiving"),
  fact('plan', "I'm taking my driving test on Thursday"),
  fact('health', "I can't eat gluten"),
  fact('health', "I've had migraines since I was a kid"),
  fact('preference', "I'm not a fan of sushi"),
  fact('preference', 'Jazz is my favorite kind of music'),
  fact('possession', 'I have an old Toyota Corolla'),
  fact('birthday', 'I was born on July 4th'),
  noise("I'm eating lunch right now"),
  noise("I'm on my way"),
  noise("I'm so tired today"),
  noise('I just got home'),
  noise("I'll be right back"),
  noise('I need to go now'),
  noise("I'm laughing so hard"),
  noise('I have a question'),
  noise('I like your answer'),
  noise("I didn't get that"),
  noise('I was wondering about that too'),
  noise('you are right'),
  noise('have a nice weekend'),
  noise('see you tomorrow'),
  noise('that sounds like fun'),
  noise('I want to hear a song'),
  noise("I'm going to bed"),
  noise('let me think about it'),
  noise('where can I find good pizza around here'),
  noise('I love this!'),
]

/**
 * Held out: written after all the tuning and never tuned on (see the measure test for how it is used).
 * A change to the rules made because of one of these lines makes it a tuning line: move it up then.
 */
export const ZH_HELD_OUT: LabelledLine[] = [
  fact('pet', '我家的金毛特别能吃'),
  fact('pet', '我最近养了两只小乌龟'),
  fact('learning', '我在学做饭，昨天第一次做了红烧肉'),
  fact('hobby', '我是个摄影爱好者'),
  fact('hobby', '没事的时候我喜欢去爬山'),
  fact('family', '我老公是警察'),
  fact('family', '我女儿明年上幼儿园'),
  fact('job', '我在一家游戏公司做策划'),
  fact('job', '我是自由职业者'),
  fact('school', '我在复旦读博'),
  fact('home', '我现在住在深圳南山'),
  fact('travel', '我打算过年去哈尔滨看冰雕'),
  fact('plan', '我下个月底要交毕业论文'),
  fact('health', '我胃不好，不能吃辣'),
  fact('preference', '我不喜欢喝牛奶'),
  fact('possession', '我新买了一台相机'),
  fact('birthday', '我的生日是八月十五'),
  fact('identity', '我今年三十五了'),
  noise('我去吃饭了'),
  noise('我觉得这个不太好'),
  noise('我今天心情不好'),
  noise('刚下班，累死了'),
  noise('你今天过得怎么样'),
  noise('我也不清楚'),
  noise('这个问题我问过了'),
  noise('你记得我昨天说的吗'),
  noise('晚上吃什么好呢'),
  noise('好吧，那算了'),
  noise('我在看电视'),
  noise('嗯嗯，我知道'),
]

export const EN_HELD_OUT: LabelledLine[] = [
  fact('pet', 'My dog Bella is a rescue from Greece'),
  fact('pet', 'I have three cats and a parrot'),
  fact('learning', "I'm learning to play chess"),
  fact('hobby', 'I paint watercolors on weekends'),
  fact('family', 'My son is starting kindergarten next fall'),
  fact('family', 'My parents live in Florida'),
  fact('job', 'I work night shifts at a warehouse'),
  fact('job', "I'm a high school history teacher"),
  fact('school', "I'm studying nursing at community college"),
  fact('home', 'I live with my grandmother in Chicago'),
  fact('travel', "I'm flying to Rome next Wednesday"),
  fact('plan', 'I have a job interview at Google on Monday'),
  fact('health', "I'm allergic to shellfish"),
  fact('health', "I've been diagnosed with diabetes"),
  fact('preference', "I can't stand cilantro"),
  fact('possession', 'I just bought a used Subaru'),
  fact('birthday', 'My birthday is December 12'),
  fact('identity', "I'm 22"),
  noise("I'm heading out now"),
  noise('I think it will rain later'),
  noise("I'm watching a movie right now"),
  noise('how was your day?'),
  noise('I have no idea'),
  noise('I already asked that'),
  noise('Did you remember what I told you yesterday?'),
  noise('what should I eat tonight'),
  noise('ok never mind'),
  noise("I'm bored"),
  noise('I know, right?'),
  noise('that makes sense'),
]
