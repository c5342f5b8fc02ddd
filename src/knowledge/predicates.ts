/**
 * Predicates said in several ways are stored in one (搬到 → 住在, moved to → lives in), so a newer
 * statement meets the older one; single-valued ones hold one object at a time: a new object closes the old.
 */
const CANONICAL: Record<string, string> = {
  住: '住在',
  住在: '住在',
  搬到: '住在',
  搬去: '住在',
  定居在: '住在',
  定居: '住在',
  在工作: '工作于',
  在上班: '工作于',
  工作于: '工作于',
  在读书: '就读于',
  在上学: '就读于',
  就读于: '就读于',
  来自: '来自',
  去过: '去过',
  去了: '去过',
  'live in': 'lives in',
  'lives in': 'lives in',
  'living in': 'lives in',
  'moved to': 'lives in',
  'work at': 'works at',
  'work for': 'works at',
  'works at': 'works at',
  'works for': 'works at',
  'study at': 'studies at',
  'studies at': 'studies at',
  'is from': 'is from',
  'comes from': 'is from',
}

const SINGLE_VALUED = new Set(['住在', '工作于', '就读于', '来自', 'lives in', 'works at', 'studies at', 'is from'])

export function canonicalPredicate(predicate: string): string {
  const said = predicate.trim().replace(/\s+/g, ' ')
  return CANONICAL[said.toLowerCase()] ?? said
}

export function isSingleValued(predicate: string): boolean {
  return SINGLE_VALUED.has(predicate)
}
