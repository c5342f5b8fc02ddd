import nlp from 'compromise'
import { isQuestion } from '../text/questions'
import type { FactCategory, LanguageRules, Rules, Statement } from './rules'
import { categoriesBy, stripTrailingEmoji } from './rules'

/**
 * The offline judge's rules for English (rule-judge.ts): the kinds of fact a statement about the
 * speaker names, the statements of a sentence with the speaker put back where a chat line leaves
 * them out, any other statement of the speaker's life, and the statement retold in the third person.
 */

/** A statement where the speaker is the subject or owner: I, me, my, we, our… */
const EN_SPEAKER = /\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we'll|we've|our|us)\b/
const EN_KIN =
  '(?:wife|husband|girlfriend|boyfriend|partner|fianc[eé]e?|mom|mum|mother|mommy|dad|father|daddy|parents?|son|daughter|kids?|children|child|baby|brother|sister|siblings?|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece|nephew|friends?|best friend|bff|colleagues?|coworkers?|co-workers?|boss|manager|roommate|flatmate|classmate|neighbou?r|family|in-laws)'
const EN_PET =
  '(?:dogs?|cats?|pupp(?:y|ies)|pups?|doggos?|pooch(?:es)?|kitty|kitties|fur ?bab(?:y|ies)|kittens?|pets?|rabbits?|bunn(?:y|ies)|hamsters?|guinea pigs?|parrots?|birds?|fish|goldfish|turtles?|tortoises?|horses?|snakes?|lizards?|retrievers?|labradors?|labs?|corgis?|poodles?|huskies|husky|beagles?|bulldogs?|terriers?|shepherds?|chihuahuas?|pugs?|dachshunds?|tabby|persian)'
const EN_MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const EN_DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend'
const EN_DATE = new RegExp(
  [
    `\\b(?:today|tomorrow|tonight|next (?:week|month|year|${EN_DAYS}|${EN_MONTH})|this (?:${EN_DAYS}|evening|summer|winter|spring|fall|autumn|week|month|year)|on (?:${EN_DAYS})|in (?:\\w+ )?(?:days?|weeks?|months?|years?))\\b`,
    `\\b(?:in|on|by|until|this|next) ${EN_MONTH}\\b`,
    `\\b${EN_MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)? (?:of )?${EN_MONTH}\\b`,
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
    '\\b\\d{1,2}/\\d{1,2}\\b',
  ].join('|'),
)
const EN_EVENT =
  '(?:birthday|anniversary|appointment|deadline|exam|test|interview|flight|wedding|trip|vacation|holiday|surgery|meeting|marathon|race|concert|match|game|party|date|checkup|check-up|conference|presentation)'
const EN_OBJECT_FREE = /^(?:it|that|this|them|those|these|you|so much|a lot|to|too)?$/
const EN_JOBS =
  '(?:teacher|doctor|nurse|engineer|developer|programmer|designer|lawyer|accountant|police officer|cop|driver|chef|cook|manager|student|writer|artist|musician|scientist|researcher|professor|consultant|analyst|architect|pharmacist|vet|dentist|pilot|firefighter|farmer|electrician|plumber|mechanic|cashier|barista|waiter|waitress|journalist|editor|photographer|freelancer|entrepreneur|founder|intern|lead|director|ceo|cto)'

const EN_REQUEST =
  /(?<!\b(?:i|you|we) )\bremember (?:that|this|my|i|i'm|me|we)\b|\bdon't forget\b|\bdo not forget\b|\bplease remember\b|\bkeep in mind\b/

const EN_RULES: Rules = {
  request: (s) => EN_REQUEST.test(s),
  identity: (s) =>
    /\bmy name is\b|\bmy name's\b|\bi'm called\b|\bi am called\b|\bcall me\b|\bi(?: am|'m) \d{1,3}(?: years old)?\b|\bi(?: am|'m) (?:left-handed|right-handed|an only child|a twin|an? (?:introvert|extrovert))\b|\bmy (?:zodiac|star) sign\b|\bi(?: am|'m) an? (?:aries|taurus|gemini|cancer|leo|virgo|libra|scorpio|sagittarius|capricorn|aquarius|pisces)\b/.test(
      s,
    ),
  job: (s) =>
    new RegExp(
      `\\bi (?:work|worked|'ve worked|have worked) (?:at|for|as|in|on)\\b|\\bi(?: am|'m) (?:a|an) (?:[\\w-]+ ){0,3}${EN_JOBS}s?\\b|\\bi (?:just )?(?:got|was) (?:promoted|hired|fired|laid off)\\b|\\bi teach\\b|\\bi (?:just )?(?:quit|lost|started|got|found|changed) (?:my|a) (?:new )?(?:job|career)\\b|\\bi(?: am|'m) (?:retired|unemployed|self-employed|between jobs)\\b|\\bmy (?:job|work|profession|occupation) is\\b|\\bi run (?:a|my own)\\b`,
    ).test(s),
  school: (s) =>
    /\bi (?:study|studied|majored|major|'m majoring|am majoring|graduate|graduated|'m graduating|am graduating)\b|\bi(?: am|'m) (?:in|doing|starting) (?:my )?(?:first|second|third|fourth|final|last|\d(?:st|nd|rd|th)) year\b|\bi(?: am|'m) (?:a )?(?:freshman|sophomore|junior|senior|grad student|phd student|phd candidate)\b|\bi go to (?:\w+ )*(?:school|college|university|uni)\b|\bmy (?:major|degree|thesis|school|college|university)\b|\bi(?: am|'m) (?:doing|taking|finishing|pursuing) (?:a |an |my )?(?:master's|masters|bachelor's|phd|degree|mba)\b/.test(
      s,
    ),
  home: (s) =>
    /\bi (?:live|lived|grew up|was born|'ve lived|have lived) (?:in|at|near|on)\b|\bi(?: am|'m) from\b|\bi come from\b|\b(?:i|we)(?: just)? (?:moved|am moving|'m moving|are moving|'re moving|will move|'ll move|relocated) (?:to|back|here|in|into)\b|\bmy (?:home ?town|home|apartment|house) is in\b/.test(
      s,
    ),
  family: (s) =>
    new RegExp(`\\b(?:my|our) (?:\\w+ )?${EN_KIN}\\b`).test(s) ||
    /\bi have (?:a|an|one|two|three|four|five|\d) (?:(?:\w+) )?(?:kids?|children|sons?|daughters?|brothers?|sisters?|siblings?|grandchildren|twins)\b/.test(
      s,
    ) ||
    /\bi(?: am|'m| got| just got) (?:married|engaged|divorced|single|pregnant|getting married|expecting)\b/.test(s) ||
    /\b(?:two|three|four|five|\d) (?:older |younger |little |big |elder )?(?:brothers|sisters|siblings|kids|children|sons|daughters)\b/.test(
      s,
    ),
  pet: (s) =>
    new RegExp(`\\b(?:my|our) (?:\\w+ )?${EN_PET}\\b`).test(s) ||
    new RegExp(
      `\\b(?:i|we)(?:'ve| have)? (?:just )?(?:have|got|own|adopted|rescued|bought|has) (?:a|an|two|three|\\d) (?:[\\w-]+ ){0,2}${EN_PET}\\b`,
    ).test(s),
  learning: (s) =>
    /\bi(?: am|'m|'ve been| have been) (?:\w+ )?(?:learning|studying|practicing|practising|taking (?:\w+ )?(?:classes|lessons|courses?))\b|\bi (?:started|began|want to start|'m starting) (?:learning|studying|taking|to learn)\b|\bi(?: am|'m) (?:taking|doing) (?:an? )?(?:\w+ )?(?:class|course|lessons?)\b/.test(
      s,
    ),
  hobby: (s) =>
    /\bi (?:\w+ )?(?:play|collect|paint|knit|bake|hike|run|swim|cycle|bike|climb|draw|sing|dance|garden|fish|surf|ski|skate|ride|jog|golf|sew|crochet|write poetry|do yoga|go (?:hiking|fishing|running|swimming|climbing|camping|skiing))\b(?! (?:it|that|this|you)\b)|\bi(?: am|'m) (?:really )?into\b|\bi(?: am|'m) (?:a )?(?:big |huge )?fan of\b|\bmy (?:hobby|hobbies)\b/.test(
      s,
    ),
  preference: (s) => {
    const m =
      /\bi (?:(?:really|also|just|absolutely|totally|actually|kinda|kind of|sort of|truly|still|always|do|don't|do not|don't really|never|honestly) )*(?:like|love|hate|prefer|enjoy|adore|dislike|can't stand|cannot stand|don't eat|don't drink|never eat|never drink|can't eat|can't drink)\b/.exec(
        s,
      )
    if (m) {
      const rest = s
        .slice(m.index + m[0].length)
        .replace(/[^a-z0-9' ]+/g, ' ')
        .trim()
      // "I love this series" names what they like; "I love this", "I love this photo" react to what is in front of them
      return (
        !EN_OBJECT_FREE.test(rest) &&
        !/^(?:your|you)\b|^(?:this|these|that)(?: (?:one|photo|pic|picture|shot|idea|place|song|video|look|color|colour))?s?$/.test(rest)
      )
    }
    return /\bi(?: am|'m) not (?:a|much of a) (?:big )?fan of\b|\bmy (?:favou?rite|fave)s?\b|\bis my (?:favou?rite|fave)\b|\bi(?: am|'m) (?:a )?(?:vegetarian|vegan|pescatarian)\b|\bi(?: am|'m) (?:afraid|scared) of\b/.test(
      s,
    )
  },
  health: (s) =>
    /\bi(?: am|'m) (?:allergic|lactose intolerant|gluten intolerant|diabetic|asthmatic|epileptic|colorblind|colou?r blind|deaf|blind|pregnant|on a diet|recovering)\b|\bi(?: have|'ve got| got|'ve had| have had| suffer from| was diagnosed with|'ve been diagnosed with) (?:an? )?(?:\w+ )?(?:allergy|allergies|asthma|diabetes|adhd|autism|anxiety|depression|migraines?|insomnia|arthritis|cancer|covid|flu|cold|high blood pressure|back pain|a bad back|celiac)\b|\bi (?:broke|sprained|hurt|injured|twisted) my\b|\bi(?: had| have| 'm having|'m having) (?:a |an )?(?:surgery|operation)\b|\bmy (?:allerg|diet|doctor)\w*/.test(
      s,
    ),
  possession: (s) =>
    /\bi (?:just )?(?:drive|own|bought|got|purchased|'ve got|have got|have) (?:a|an|my|two|three) (?:new |used |old |brand new )?(?:car|bike|motorcycle|house|home|apartment|flat|condo|camera|laptop|computer|macbook|iphone|phone|piano|guitar|boat|truck|tesla|honda|toyota|bmw|ps5|playstation|xbox|switch|drone|tablet|ipad|watch|\w+ (?:civic|corolla|model \w))\b|\bi drive a\b|\bi own (?:a|an|two)\b/.test(
      s,
    ),
  birthday: (s) => /\b(?:birthday|anniversary)\b/.test(s) && (EN_DATE.test(s) || /\b(?:birthday|anniversary) is\b/.test(s)),
  plan: (s) =>
    EN_SPEAKER.test(s) &&
    (new RegExp(`\\b${EN_EVENT}\\b`).test(s) ||
      EN_DATE.test(s) ||
      /\b(?:plan(?:ning)? to|intend to|decided to|signed up for|booked|going to (?:visit|travel|fly|move)|i'm flying|i fly|i'm going to [A-Z]|leaving for|heading to|i'm visiting|moving to)\b/.test(
        s,
      )),
}

/** The small talk and stances that name no fact, whatever rule they brush against. */
const EN_STANCE =
  /^(?:i (?:think|guess|mean|agree|see(?! (?:them|him|her|my|our)\b)|know(?! (?:how to|a bit|a little|some|(?:a )?few|several|\w+ languages?)\b)|don't know|'m not sure|am not sure|hope|wonder|feel like|suppose|bet)\b|i'm (?:just )?(?:kidding|joking)\b|i(?:'m| am) (?:so |very |really )?(?:tired|bored|hungry|sleepy|happy|sad|glad|sorry|fine|good|ok|okay)(?: (?:today|now|right now|tonight))?\b[\s.!]*$)/

const EN_REQUEST_WRAPPER =
  /^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:remember|don't forget|do not forget|keep in mind|note)(?:\s+that)?[,:]?\s+/i

const normalizeEn = (text: string) => text.toLowerCase().replace(/[\u2018\u2019]/g, "'")

/** A question, also one that starts like "when I was a kid, …" only when it asks. */
function isEnQuestion(lower: string): boolean {
  if (!isQuestion(lower, 'en')) return false
  return /[?？]\s*$/.test(lower) || !/^(?:when|where|how|what|while|since|after|before|once|if|as) (?:i|we|my|our|me)\b/.test(lower)
}

function enCategories(statement: string): FactCategory[] {
  const lower = normalizeEn(statement)
  if (!EN_SPEAKER.test(lower) || isQuestion(lower, 'en') || EN_STANCE.test(lower.trim())) return []
  return categoriesBy(EN_RULES, lower)
}

// ─────────────── cutting a sentence into statements ───────────────

/** Words at the head of a clause that say nothing yet: interjections, reactions, thanks, fillers. */
const EN_LEAD =
  /^(?:(?:yeah|yes|yep|yup|ya|yea|yah|oh|ohh|ooh|wow|whoa|woah|omg|gosh|oh my (?:god|gosh|goodness)|ha(?:ha)+h?|hehe\w*|lol|lmao|aw+|hey|hi|hello|well|so|and|but|also|anyway|anyways|actually|honestly|totally|definitely|absolutely|sure|right|true|ok|okay|alright|hm+|um+|uh|ah+|man|dude|girl|no way|same(?: here)?|me too|ha|hah|nice|cool|great|awesome|amazing|congrats|congratulations|thanks(?: so much| a lot)?|thank you(?: so much)?|ugh|yikes|btw|by the way|oh no|funny enough|guess what|good question|to be honest|tbh|fun fact|haha yes)\b[\s,!.…~-]*)+(?=(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|me and)\b)/i

/** A clause that sets the time or the circumstances of what follows ("Last weekend, I…", "When I was a kid, my dad…"). */
const EN_ADVERBIAL =
  /^(?:when|whenever|after|before|since|while|as|once|if|back|last|this|next|yesterday|today|tonight|earlier|later|recently|lately|these days|nowadays|growing up|on|in|at|during|over|for|from|every|each|the other day|a few|a couple|one|two|three|four|five|six|seven|eight|nine|ten|\d+|years|months|weeks|days|ever since|a while|right after|honestly|to be honest|funny enough|believe it or not)\b/i

/** A clause that only announces what follows ("Let me tell you, …", "I'm not gonna lie, …"). */
const EN_FILLER =
  /^(?:let me tell you|you know what|guess what|(?:i'm |i am )?not gonna lie|to be honest|tbh|honestly|i have to say|i gotta say|i must say|fun fact|i mean|you know|for real|seriously)[\s,!.…:]*$/

/** Someone or something of the speaker's named without "my", as friends do ("The kids are doing great, …"). */
const EN_THEIRS =
  /^(?:the (?:kids|baby|boys|girls|twins|little ones?|family|pup|puppy|dog|cat|kitten|hubby)|hubby|mom|dad|grandma|grandpa)\b(?! (?:must|will|would|'ll|might|should|could)\b)(?!.*\b(?:you|your)\b)/

/** Past forms and present participles a chat line may start with, the speaker left out ("Went to…", "Been painting…"). */
const EN_PARTICIPLES =
  'planning|thinking|hoping|trying|working|heading|getting|starting|learning|reading|training|saving|looking|taking|writing|painting|studying|preparing|helping|moving|visiting|volunteering|researching|considering|spending|building|making|teaching|practicing|practising|cooking|baking|running|playing|traveling|travelling|organizing|organising|decorating|renovating|applying|doing|' +
  'counting|adding|going|watching|listening|enjoying|loving|feeling|missing|waiting|finishing|hanging|joining|attending|celebrating|exploring|walking|hiking|camping|gaming|coding|designing|drawing|singing|dancing|shopping|fixing|packing|unpacking|recovering|struggling|staying|driving|riding|swimming|climbing|fishing|gardening|knitting|sewing|crafting|mentoring|coaching|competing|recording|filming|launching|selling|buying|investing|hosting|taking'
const EN_UNSAID_SUBJECT = new RegExp(
  `^((?:(?:just|finally|also|recently|already|actually|literally|totally|still|currently|lately|really|even|then|only|officially)\\s+)*)(been|${EN_PARTICIPLES}|[a-z]+)\\b`,
  'i',
)
const EN_GERUND_SUBJECT =
  /^\s+(?:(?:really|always|truly|just|honestly|totally|definitely|actually|usually|often|never)\s+)*[a-z]+s\b|\b(?:is|was|are|were|has|have|can|will|makes?|helps?|gives?|keeps?|brings?|opens?|means?|takes?|feels?|gets?|teaches?|changes?|sounds?|seems?|looks?)\b/i
const EN_NOT_PAST = new Set([
  'need',
  'feed',
  'speed',
  'seed',
  'indeed',
  'bed',
  'red',
  'shed',
  'wed',
  'bred',
  'led',
  'ted',
  'ned',
  'fred',
  'bled',
])

/** The subject to add when the speaker was left out: "Went to…" → "I went to…", "Been painting…" → "I've been painting…". */
function unsaidSubject(clause: string): string | undefined {
  const m = EN_UNSAID_SUBJECT.exec(clause)
  if (!m) return undefined
  const word = m[2].toLowerCase()
  if (word === 'been') return "I've"
  // "Love hearing the leaves crunch", "Can't seem to find a place": not "Enjoy your trip!" (said to the listener)
  if (/^(?:love|hate|prefer|miss|need)$/.test(word) || (word === 'can' && /^can(?:'t|not)\b/.test(clause.slice(m[1].length))))
    return /^\s+(?:your|yourself|you|it|this|that|them)\b/.test(clause.slice(m[0].length).replace(/^'t|^not/, '')) ? undefined : 'I'
  if (new RegExp(`^(?:${EN_PARTICIPLES})$`).test(word)) {
    // "Traveling really opens your mind", "Reading helps me relax": the participle is the subject
    const after = clause.slice(m[0].length).split(',')[0]
    return EN_GERUND_SUBJECT.test(after) ? undefined : "I'm"
  }
  const past = EN_PAST.has(word) || (/^[a-z]{2,}ed$/.test(word) && !/eed$/.test(word) && !EN_NOT_PAST.has(word))
  // "Roasted chicken is one of my favorites": an adjective of the subject, not a verb
  if (past && /^\s+(?:[\w'-]+\s+){0,3}(?:is|are|was|were)\b/.test(clause.slice(m[0].length))) return undefined
  return past && !['said', 'thought', 'used', 'meant', 'felt', 'knew'].includes(word) ? 'I' : undefined
}

/** The statement with the speaker put back where a chat line leaves them out: "Went to…" → "I went to…". */
function withSubject(core: string): string {
  const lower = normalizeEn(core)
  if (/^(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd|me and|my|our)\b/.test(lower)) return core
  const subject = unsaidSubject(lower)
  if (!subject) return core
  const adverbs = subject === 'I' ? '' : EN_UNSAID_SUBJECT.exec(core)![1]
  const rest = core.slice(adverbs.length)
  return `${subject} ${adverbs.toLowerCase()}${rest.charAt(0).toLowerCase()}${rest.slice(1)}`
}

/**
 * The part of an English statement that says something about the speaker: interjections and reactions
 * before it are dropped ("Wow, I went there last year too" → "I went there last year too"), a clause
 * that sets its time is kept ("Last weekend, I went camping").
 */
function enCore(statement: string): string {
  const segments = statement.split(/(?<=,)\s+|\s+[-–—]+\s+/)
  const first = segments.findIndex((segment) => {
    const lower = normalizeEn(segment)
    if (EN_FILLER.test(lower)) return false
    return EN_SPEAKER.test(lower) || EN_THEIRS.test(lower) || unsaidSubject(lower.replace(/^[\s,!.…~-]+/, '')) !== undefined
  })
  let start = Math.max(0, first)
  while (start > 0 && EN_ADVERBIAL.test(segments[start - 1].trim())) start--
  return segments.slice(start).join(' ').trim().replace(EN_LEAD, '')
}

/** A stance the speaker opens with: what follows is theirs only when it has a subject of its own ("I think I'll apply…"). */
const EN_STANCE_LEAD =
  /^(?:i (?:really |honestly |just |do |totally |kinda |still )?(?:think|guess|mean|agree|see(?! (?:them|him|her|my|our)\b)|know(?! (?:how to|a bit|a little|some|(?:a )?few|several|\w+ languages?)\b)|don't know|hope|wonder|feel like|suppose|bet|believe|reckon|figure|gotta say|have to say|must say|(?:just )?wanted to say|(?:always |often )?say|remember(?: when| the (?:day|time|first time)(?: when| that)?| how)?)|i'm (?:not )?(?:sure|pretty sure|certain|positive)|i(?: am|'m) (?:just )?(?:kidding|joking))\b(?: that)?[,\s]*/

// ─────────────── any statement about the speaker's life ───────────────

/** The speaker as the subject of a clause (I, we, me and…, my sister…), or what is theirs named ("that's my old bike"). */
const EN_OWN_SUBJECT =
  /\b(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd)\b|^(?:me and|my|our)\b|\b(?:is|was|'s|are|were|been) (?:\w+ ){0,2}(?:my|our)\b/

/**
 * What a line says to or about the other person, about the conversation or about the moment rather
 * than about the speaker's life: feelings and wishes for the listener ("I'm so happy for you", "I
 * hope you have fun", "I can't wait to see it"), moves of the chat ("I'll check it out", "I have a
 * question"), and the moment ("I'm heading to bed", "I'm eating lunch right now", "I'm so tired").
 */
const EN_CHAT_MOVE = new RegExp(
  [
    "\\bi(?:'m| am)? (?:\\w+ ){0,2}(?:proud of (?:you|u)|happy for|glad (?:you|that you|to hear|for you|it)|sorry (?:you|for your|to hear|about your|that you|for you)|excited for (?:you|u)|rooting for|here for you|thinking of you|praying for|jealous|so impressed|really impressed)",
    '\\bi (?:\\w+ ){0,2}(?:love|like|admire|appreciate|adore|respect|envy|miss|enjoy(?:ed)?) (?:your|you|(?:this|these) (?:one|photo|pic|picture|shot|idea|song|video|look)s?\\b|(?:this|these)\\b(?! [a-z])|how you|that you|the way you|it when you|how much you|hearing|seeing your|talking to you|chatting)',
    '\\bi (?:\\w+ ){0,2}(?:hope|wish|bet|believe in|trust) (?:you|your|it|that|so|everything|things|all|we can|we get)',
    "\\bi (?:can(?:'t|not)?|could) (?:\\w+ )?(?:imagine|tell|relate|understand|picture|see (?:why|how|that|it|what|where))\\b",
    '\\bi (?:\\w+ )?(?:hear|feel|get|understand|agree with) (?:you|ya|that|it|what you|the same)',
    "\\b(?:can't|cannot|can not) wait (?:to (?:see|hear|try|read|meet)|for you)",
    "\\b(?:would|'d) love to (?:see|hear|try|meet|read|join) (?:it|that|them|those|more|how|what|your|you|pictures|photos|pics|the pictures|the photos)",
    "^i(?:'ll| will) (?:\\w+ )?(?:check (?:it|that|them|this) out|keep (?:that|it|this|you) in mind|let you know|try (?:it|that|this)|think about it|do that|do it|tell you|send (?:you|it|them)|text you|call you|see you|talk to you|be there|remember that)",
    "^i (?:have|got) (?:a|one more|another) question|^i (?:have|had) no idea|^i (?:didn't|don't|did not|do not) (?:get|understand|follow) (?:that|it|you|what)|^i (?:already )?asked (?:that|this|you)|^i was (?:just )?wondering|^i (?:want|wanna|would like|'d like) to (?:hear|listen to) (?:a|some|the|another) (?:song|music|joke|story)",
    '\\b(?:heading|going|off) to (?:bed|sleep)\\b|\\b(?:heading|going|off) (?:out|home|to work)(?: now| soon)?$|\\bon (?:my|our) way\\b|\\bbe right back\\b|\\bbrb\\b|\\b(?:gotta|have to|need to|got to) (?:go|run|sleep)\\b',
    '\\b(?:eating|having|grabbing|making|cooking) (?:lunch|dinner|breakfast|a snack|some food|coffee)\\b|\\bjust got (?:home|back home|up|off work)\\b|\\blaughing so hard|\\bwatching (?:a movie|tv|a show|netflix)|\\b(?:lying in bed|chilling|getting ready)\\b',
    "^i(?:'m| am) (?:so |really |very |super |pretty |a bit |kinda |just |a little )*(?:tired|bored|hungry|sleepy|happy|sad|glad|fine|good|ok|okay|great|excited|exhausted|stressed|relieved|stuffed|busy|well|thrilled|doing (?:good|great|well|fine|okay|ok|alright))(?: (?:today|now|right now|tonight|too|as well|lol|haha|thanks|thank you))*$",
    "^i(?:'m| am) (?:doing )?(?:good|great|well|fine|okay|ok|alright|awesome|not bad)\\b",
    '\\bmade my (?:day|week|night)\\b|^(?:my|oh my) (?:god|gosh|goodness|bad|pleasure)\\b|\\bmy heart goes out|^my thoughts exactly',
    // a feeling, a wish or words for the listener: "how proud I am of you", "I love how supportive your family is"
    "\\b(?:proud|happy|glad|sorry|love|admire|appreciate|adore|wish|miss|jealous|impressed|awe|excited|rooting|thinking|praying|curious)(?: [\\w']+){0,3} (?:you|your|u|ya)\\b|\\bhere (?:for|if) you\\b|\\bcan (?:\\w+ )?see you\\b|\\b(?:wanted|meant|meaning) to (?:ask|tell) you\\b",
    "\\bi (?:didn't|did not|never) (?:know|realize|realise|think|guess) (?:you|that you|your)|\\bnever thought (?:of|about) it\\b|\\bi(?:'ve| have) heard (?:great|good|amazing|so much|a lot|wonderful)",
    "^we (?:should|could|gotta|must|oughta|all)\\b|^if i (?:were|was) you\\b|\\bcan(?:'t|not) believe (?:it|that|how|you|what|this)\\b",
    '\\bwish i (?:could|had|was|were) (?:have )?(?:been|go|come|see|join|there)',
    "\\bi (?:\\w+ )?(?:need|have|ought|gotta|got|should|must) to (?:try|check|do|see|read|watch|visit|make) (?:that|it|this|them|those)\\b|\\bi(?:'ll| will) (?:\\w+ ){0,3}(?:check|look) (?:\\w+ ){0,2}(?:out|up)\\b",
    // a request inside a line: "…, tell me about your week!", "let me know how it goes"
    '(?:^|[,.!]\\s*)(?:please |pls )?(?:tell|show|send|give) me\\b|\\blet me know\\b|\\benough about me\\b',
    '\\b(?:happy|glad) to help\\b|\\bexcited to (?:hear|see|read|try) (?:about )?(?:it|that|more|your|all)|\\blooking forward to (?:it|that|this|seeing|hearing|meeting|catching up)\\b',
  ].join('|'),
)

/** Words that carry nothing: pronouns, auxiliaries, articles, prepositions, intensifiers, interjections. */
const EN_EMPTY_WORDS = new Set(
  (
    'i me my mine myself we us our you your yours it its that this these those they them their there here he she him her his ' +
    "am is are was were be been being 's 'm 're 've 'll 'd do does did will would can could should shall may might must gonna wanna gotta " +
    'a an the some any all so such very really totally just also too as well still even much lot lots bit kinda pretty quite super ' +
    'to of in on at for with about from by up out into over and but or because not no yes yeah oh wow haha lol omg thanks thank ' +
    'now right today tonight thing things stuff one way same more most ever again sure definitely absolutely honestly actually'
  ).split(' '),
)

function enContentWords(text: string): number {
  return text
    .replace(/\b(?:i|we|you|it|that|they|he|she|there|who|what)'(?:m|s|re|ve|ll|d)\b|\b\w+n't\b/g, ' ')
    .split(/[^a-z0-9']+/)
    .filter((word) => word && !EN_EMPTY_WORDS.has(word)).length
}

/**
 * Any other statement the speaker makes about their own life: a clause with the speaker as its
 * subject (or left out: "Went to a pottery class on Saturday") that asks nothing, is no stance, no
 * reaction to the listener and no remark about the moment, and says at least two things. Returns the
 * statement to rewrite (with "I" added where the speaker was left out), or undefined.
 */
function enLife(core: string): string | undefined {
  const lower = normalizeEn(core)
  if (EN_CHAT_MOVE.test(lower)) return undefined
  if (EN_OWN_SUBJECT.test(lower) || EN_THEIRS.test(lower)) return enContentWords(lower) >= 2 ? core : undefined
  // what something is or does to the speaker: "Video games give me so much joy", "The photo is from a forest near my
  // hometown", "Roasted chicken is one of my favorites"; not an imperative ("Let me know how it goes")
  if (EN_SPEAKER_ELSEWHERE.test(lower) && !EN_IMPERATIVE.test(lower)) return enContentWords(lower) >= 3 ? core : undefined
  return undefined
}

/** The speaker as an object or an owner further on in the clause ("…brings me joy", "…near my hometown", "…with us"). */
const EN_SPEAKER_ELSEWHERE = /\b(?:me|us|mine|myself|ourselves)\b|\b(?:my|our)\b(?! (?:god|gosh|goodness|bad|pleasure|lord|heart goes)\b)/
/** A clause that tells the listener to do something, or addresses them. */
const EN_IMPERATIVE =
  /^(?:let|tell|send|show|give|keep|check|come|join|take|get|call|text|help|wish|pray|remind|ask|look|see|trust|don't|do|please|thank|thanks|enjoy|have|try|go|stay|say|hit|hmu|dm|follow|count|make sure|feel free|you|your|u|ur)\b/

/**
 * The statements of one English sentence: cut at ";" and before "and I", "but I", "so my"… when what
 * comes before has a subject of its own ("I live in Seattle and I work at Amazon"), not inside one
 * ("My girlfriend and I have been together for five years").
 */
function enStatements(sentence: string): Statement[] {
  const parts: string[] = []
  for (const piece of sentence.split(/;\s*|\s+[-–—]+\s+/).map(withoutQuestionTail)) {
    // "…, and I…", "… but my…"; after a bare comma only a new promise or plan ("I plan to return on July 20, I'll bring…")
    const cut = /(?:,\s*|\s+)(?:and|but|so|plus)\s+(?=(?:i|i'm|i've|i'll|my|we|we're|our)\b)|,\s*(?=(?:i'll|i will|we'll|we will)\b)/gi
    let from = 0
    for (const m of piece.matchAll(cut)) {
      const before = piece.slice(from, m.index)
      // what comes before has a subject of its own: "I live in Seattle", "You've put a lot of work into this"
      if (!/\b(?:i|i'm|i've|i'll|we|we're|you|you're|you've|he|she|they|my \w+ (?:is|are|was|has|lives|works))\b/i.test(before)) continue
      parts.push(before)
      from = m.index + m[0].length
    }
    parts.push(piece.slice(from))
  }
  return parts
    .map((part) => part.trim().replace(/^(?:and|but|so|also|oh|well|btw|by the way|anyway)[,\s]+/i, ''))
    .filter(Boolean)
    .map(enStatement)
}

/** A statement with a question to the listener tacked on ("I'm looking to branch out, any ideas?"): the statement alone. */
function withoutQuestionTail(piece: string): string {
  if (!/[?？]\s*$/.test(piece)) return piece
  const m =
    /^(.*\b(?:i|i'm|i've|my|we|our)\b.*?)(?:,|\s[-–—])\s+(?:(?:and|but|so|or)\s+)?(?:any|anything|got any|what|how|do|did|have|are|is|was|can|could|would|will|wanna|want|right|huh|you|who|where|when|why|which|isn't|aren't|don't)\b[^,]*$/i.exec(
      piece,
    )
  return m ? m[1] : piece
}

/**
 * What the speaker tells the listener to do or will do for them ("you should apply", "I'll pick you up
 * at 8"): said to someone, no fact of the speaker's life. A past told with "you" in it stays ("I went to
 * the café you recommended").
 */
const EN_TO_LISTENER =
  /\b(?:you|u)(?:'re|'ll|'d| are| will| would| should| could| can| must| need| have to| gotta|'ve got to) |^(?:you|your)\b|\bi(?:'ll| will| am going to|'m going to|'m gonna| can| could) (?:\w+ ){0,3}(?:you|u|ya)\b/

/** One English statement: its core, and the kinds of fact it states (none for a question, a stance or a chat move). */
function enStatement(part: string): Statement {
  let core = withSubject(enCore(part))
  let lower = normalizeEn(core)
  const none = { text: core, categories: [] }
  if (isEnQuestion(lower)) return none
  const stance = EN_STANCE_LEAD.exec(lower)
  if (stance) {
    // "I think I'll apply to grad school": the stance goes, the statement stays
    const rest = core.slice(stance[0].length)
    if (!/^(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|my|our)\b/i.test(rest)) return none
    core = rest
    lower = normalizeEn(rest)
  }
  if (EN_CHAT_MOVE.test(lower) || EN_TO_LISTENER.test(lower)) return none
  core = withSubject(core)
  const categories = enCategories(core)
  if (categories.length) return { text: core, categories }
  const life = enLife(core)
  return life ? { text: life, categories: ['life'] } : none
}

/**
 * An English sentence that goes on about what the sentence before said, without naming it again:
 * "It was so powerful.", "It's special to me.", "They loved the jellyfish." It joins that fact.
 */
function continuesEn(sentence: string): boolean {
  const lower = normalizeEn(sentence.trim())
  return (
    /^(?:it|it's|that|that's|this|they|they're|he|she|he's|she's|the \w+ (?:was|were|is|are))\b/.test(lower) &&
    !/^(?:that|this)(?:'s| is| was)? (?:so |really |very |such |super |pretty )*(?:awesome|amazing|great|cool|nice|funny|hilarious|crazy|wild|sweet|cute|true|right|fair|sad|awful|terrible|the best|the worst)\b/.test(
      lower,
    ) &&
    !/\b(?:you|your)\b/.test(lower) &&
    !isEnQuestion(lower) &&
    !EN_CHAT_MOVE.test(lower) &&
    lower.split(/\s+/).length <= 20
  )
}

// ─────────────── the third person ───────────────

const EN_MODALS = new Set(['can', 'could', 'will', 'would', 'should', 'must', 'might', 'may', 'shall', 'gotta', 'gonna', 'wanna'])
const EN_PAST = new Set([
  'was',
  'were',
  'went',
  'had',
  'did',
  'got',
  'made',
  'saw',
  'met',
  'bought',
  'took',
  'came',
  'left',
  'found',
  'gave',
  'told',
  'said',
  'thought',
  'felt',
  'knew',
  'began',
  'ran',
  'ate',
  'drank',
  'wrote',
  'read',
  'put',
  'lost',
  'won',
  'paid',
  'sold',
  'sent',
  'spent',
  'built',
  'broke',
  'chose',
  'fell',
  'flew',
  'forgot',
  'grew',
  'heard',
  'kept',
  'led',
  'lent',
  'lay',
  'meant',
  'rode',
  'rose',
  'sang',
  'sat',
  'slept',
  'spoke',
  'stood',
  'swam',
  'taught',
  'understood',
  'woke',
  'wore',
  'used',
])
const EN_ADVERBS = new Set([
  'really',
  'also',
  'just',
  'always',
  'usually',
  'often',
  'never',
  'still',
  'actually',
  'absolutely',
  'totally',
  'truly',
  'honestly',
  'sometimes',
  'rarely',
  'mostly',
  'only',
  'even',
  'kinda',
])

/** Verbs whose past is their base form. */
const EN_SAME_IN_PAST = new Set(['quit', 'put', 'cut', 'hit', 'set', 'let', 'hurt', 'shut', 'spread', 'read', 'cost', 'split', 'upset'])

const EN_SUBJECT_VERB = new RegExp(
  `\\bI((?:\\s+(?:${[...EN_ADVERBS].join('|')}|[a-z]+ly(?<!\\b(?:fly|rely|apply|reply|supply|ally|bully)))\\b)*)\\s+([a-z]+)\\b`,
  'gi',
)

/** Third person singular present of a base-form verb: like → likes, go → goes, study → studies, have → has. */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase()
  if (lower === 'have') return 'has'
  if (lower === 'be' || lower === 'am') return 'is'
  if (lower === 'do') return 'does'
  if (lower === 'go') return 'goes'
  // feed, need, bleed, speed are present; agreed, moved are past
  const past = /ed$/.test(lower) && !(/eed$/.test(lower) && lower.length <= 5)
  if (EN_MODALS.has(lower) || EN_PAST.has(lower) || past) return verb
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`
  if (/(?:s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`
  return `${verb}s`
}

/** Second-person words: said to someone, the clause cannot be put in the third person without knowing who. */
const EN_SECOND_PERSON = /\b(?:you|your|yours|yourself|yourselves|ya|y'all)\b/i
/** First-person reflexives ("I taught myself", "we did it ourselves"): no third-person form without a gender. */
const EN_REFLEXIVE = /\b(?:myself|ourselves)\b/i

/** What "I" is followed by: a base verb to conjugate, a form that stays (past, modal, auxiliary), or a word we cannot tell. */
function verbAfterI(words: string): 'base' | 'stays' | 'unknown' {
  const terms = nlp(`I ${words}`).terms().json() as { text: string; terms: { tags: string[] }[] }[]
  for (const term of terms.slice(1)) {
    const tags = new Set(term.terms[0]?.tags ?? [])
    const word = term.text.toLowerCase()
    if (EN_ADVERBS.has(word) || tags.has('Adverb')) continue
    // "I have been…", "I do love…": auxiliaries that still agree with the subject
    if (word === 'have' || word === 'do' || word === 'am') return 'base'
    if (EN_MODALS.has(word) || EN_PAST.has(word) || EN_SAME_IN_PAST.has(word)) return 'stays'
    if (!tags.has('Verb')) return 'unknown'
    if (tags.has('PastTense') || tags.has('Modal') || tags.has('Auxiliary') || tags.has('Copula') || tags.has('Gerund')) return 'stays'
    return tags.has('Infinitive') || tags.has('PresentTense') ? 'base' : 'unknown'
  }
  return 'unknown'
}

/** The speaker's own words, named: "Alice said: I completely understand." / "Alice told Bob: I'll pick you up at 8." */
function saidForm(clause: string, name: string, addressee: string | undefined): string {
  const words = stripTrailingEmoji(clause.replace(/[\s,.;:!?~…]+$/, ''))
  if (!words) return ''
  return `${name} ${addressee ? `told ${addressee}` : 'said'}: ${words.charAt(0).toUpperCase()}${words.slice(1)}.`
}

/** The parts of a statement outside quotes (what the speaker says in their own voice), rewritten; quotes kept as said. */
const EN_QUOTED = /("[^"]*"|\u201c[^\u201d]*\u201d)/g

function outsideQuotes(text: string, rewrite: (part: string) => string): string {
  return text
    .split(EN_QUOTED)
    .map((part, i) => (i % 2 ? part : rewrite(part)))
    .join('')
}

function rewriteEn(sentence: string, name: string, addressee?: string): string {
  const said = sentence
    .replace(/[\u2018\u2019]/g, "'")
    .trim()
    .replace(EN_REQUEST_WRAPPER, '')
  const unquoted = said.replace(EN_QUOTED, ' ')
  if (EN_SECOND_PERSON.test(unquoted) || EN_REFLEXIVE.test(unquoted)) return saidForm(said, name, addressee)
  const possessive = name.endsWith('s') ? `${name}'` : `${name}'s`
  const replacements: [RegExp, string | ((...m: string[]) => string)][] = [
    [/\bI(?:'m| am)\b/gi, `${name} is`],
    [/\bI was\b/gi, `${name} was`],
    [/\bI've\b/gi, `${name} has`],
    [/\bI'll\b/gi, `${name} will`],
    [/\bI'd\b/gi, `${name} would`],
    [/\bI (?:don't|do not)\b/gi, `${name} doesn't`],
    [/\bI (?:haven't|have not)\b/gi, `${name} hasn't`],
    [/\bI (?=(?:didn't|did not|can't|cannot|couldn't|won't|wouldn't|shouldn't|wasn't|hadn't|ain't)\b)/gi, `${name} `],
    [/\bI(?:'ve| have) got\b/gi, `${name} has got`],
    [/\bwe're\b/gi, `${name} and others are`],
    [/\bwe've\b/gi, `${name} and others have`],
    [/\bwe'll\b/gi, `${name} and others will`],
    [/\bwe\b/gi, `${name} and others`],
    [/\bour\b/gi, possessive],
    [/\bus\b/gi, `${name} and others`],
    [/\bmy\b/gi, possessive],
    [/\bmine\b/gi, possessive],
    [/\bme\b/gi, name],
  ]
  // quit, put, read…: past unless the statement tells a habit ("I quit my job in March", "I read every night")
  const habit = /\b(?:every|usually|often|always|sometimes|daily|weekly|each|most|never)\b/i.test(said)
  let unsure = false
  let s = outsideQuotes(said, (part) => {
    let out = part
    for (const [pattern, replacement] of replacements) out = out.replace(pattern, replacement as string)
    // I [adverbs] verb → Name [adverbs] verb-s, when the word is surely a verb
    out = out.replace(EN_SUBJECT_VERB, (whole, adverbs: string, verb: string, offset: number, all: string) => {
      const kind = verbAfterI(all.slice(offset + 2, offset + whole.length + 30))
      if (kind === 'unknown') unsure = true
      if (kind !== 'base') return whole.replace(/^I\b/i, name)
      const conjugated = EN_SAME_IN_PAST.has(verb.toLowerCase()) && !habit ? verb : thirdPerson(verb)
      return [name, ...adverbs.trim().split(/\s+/).filter(Boolean), conjugated].join(' ')
    })
    return out.replace(/\bI\b/gi, name)
  })
  if (unsure) return saidForm(said, name, addressee)
  s = stripTrailingEmoji(s.replace(/[\s,.;:!?~…]+$/, '').replace(/(?:[\s,]+(?:lol|lmao|haha\w*|hehe\w*|xd|omg|:\)|:D))+$/i, ''))
  if (!s) return ''
  if (!s.includes(name)) s = `${name} mentioned that ${s.charAt(0).toLowerCase()}${s.slice(1)}`
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`
}

function tellsInAnswerEn(sentence: string): boolean {
  const lower = normalizeEn(sentence.trim()).replace(EN_LEAD_ANSWER, '')
  if (!lower || isEnQuestion(lower) || EN_CHAT_MOVE.test(lower) || EN_TO_LISTENER.test(lower) || EN_IMPERATIVE.test(lower)) return false
  if (/\b(?:you|your|u|ur)\b/.test(lower)) return false
  return enContentWords(lower) >= 3
}

/** Reactions an answer opens with ("Thanks!", "Definitely!"), dropped before it is judged. */
const EN_LEAD_ANSWER =
  /^(?:(?:thanks|thank you|yeah|yes|yep|yup|sure|definitely|absolutely|totally|oh|wow|haha|well|so|honestly|not really|no|nope)\b[\s,!.…~-]*)+/

function answeredEn(question: string, answer: string, name: string): string {
  const said = answer.trim().replace(/[\s,;:~…]+$/, '')
  return `${name}, asked "${question.trim()}", said: ${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!]$/.test(said) ? '' : '.'}`
}

export const english: LanguageRules = {
  unnamed: 'The user',
  capitalised: true,
  asksToRemember: (sentence) => EN_REQUEST.test(sentence.toLowerCase()),
  hasContentBeyondRequest: (text) =>
    text
      .replace(/[\u2018\u2019]/g, "'")
      .replace(EN_REQUEST_WRAPPER, '')
      .replace(/\b(?:this|that|it|ok|okay|please)\b|[^\p{L}\p{N}]/giu, '').length > 0,
  isRequestable: (statement) => {
    const core = statement.toLowerCase().replace(EN_REQUEST_WRAPPER, '')
    return EN_SPEAKER.test(core) && !isQuestion(core, 'en')
  },
  statements: enStatements,
  continues: continuesEn,
  tellsInAnswer: tellsInAnswerEn,
  // in a chat of two, what the other asks ("How was your trip?", "What kind are they?") the speaker answers of their own
  asksAboutListener: (sentence) => isEnQuestion(normalizeEn(sentence.trim())),
  answered: answeredEn,
  rewrite: rewriteEn,
}
