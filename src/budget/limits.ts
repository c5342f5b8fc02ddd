/** What an owner may spend: model calls a day and prompt tokens a reply. Undefined: no limit. */
export interface BudgetLimits {
  calls?: number
  tokens?: number
}

/** What an owner spent on one day. */
export interface Spend {
  calls: number
  tokens: number
}

/** An owner's own setting wins field by field over the global default; unset fields fall through. */
export function effectiveLimits(override: BudgetLimits | undefined, defaults: BudgetLimits): BudgetLimits {
  return {
    calls: override?.calls ?? defaults.calls,
    tokens: override?.tokens ?? defaults.tokens,
  }
}

/**
 * Whether one more model call fits the day's budget. 0 calls is the offline rules only; no limit
 * keeps every call.
 */
export function callAllowed(limits: BudgetLimits, spent: Spend): boolean {
  return limits.calls === undefined || spent.calls < limits.calls
}

/** The tokens a reply's context may take: the smaller of the context's own budget and the owner's. */
export function replyTokens(limits: BudgetLimits, contextTokens: number): number {
  return limits.tokens === undefined ? contextTokens : Math.min(contextTokens, limits.tokens)
}

/** Largest calls a day or prompt tokens a reply an owner can set (beyond it, leave it unset: no limit). */
export const BUDGET_MAX = 1_000_000_000
/** Fewest prompt tokens a reply may be given (as the setting's own minimum). */
export const REPLY_TOKENS_MIN = 100

export type BudgetField = 'calls' | 'tokens'

/** The least value a field takes: 0 calls (the offline rules only), `REPLY_TOKENS_MIN` tokens. */
export const minimumOf = (field: BudgetField) => (field === 'tokens' ? REPLY_TOKENS_MIN : 0)

/** Whether a value from outside is a limit the field can take: a whole number within its range. */
export function validLimit(field: BudgetField, value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimumOf(field) && value <= BUDGET_MAX
}
