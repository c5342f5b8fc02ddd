/**
 * Words that fill one slot of what people tell about themselves: "我的猫叫什么名字" asks for the name
 * that "alice养了一只猫，叫咪咪" gives with 叫, and "what's her name" the one "a cat called Mimi" gives.
 * For matching, such a word stands as its slot's term, so the question and the answer meet on it even
 * when they share no word (the characters of a Chinese word still match as they are). Only slots whose words are unambiguous in a personal fact are listed.
 */
const SLOTS: Record<string, string[]> = {
  name: [
    '名字',
    '名叫',
    '叫做',
    '叫作',
    '称呼',
    '昵称',
    '外号',
    '小名',
    '绰号',
    '叫',
    'name',
    'names',
    'named',
    'called',
    'nickname',
    'nicknamed',
  ],
  age: ['岁', '年龄', '年纪', '周岁', 'age', 'aged'],
  birthday: ['生日', '出生', '诞辰', 'birthday', 'born'],
  job: ['职业', '工作', '上班', '任职', 'job', 'occupation', 'profession'],
  home: ['住', '住在', '居住', '家住', '定居'],
}

const SLOT_OF = new Map(Object.entries(SLOTS).flatMap(([slot, words]) => words.map((word) => [word, `\u0003${slot}`] as const)))

/** The slot term of a (lowercased, NFKC) word, marked so it never equals a word; undefined for most words. */
export function slotTerm(word: string): string | undefined {
  return SLOT_OF.get(word)
}
