/** The fields that are set: a blank console field (undefined or null) leaves the module's own default in place. */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>
}
