/**
 * One task per key at a time inside this process: a call for a key waits until the calls before it
 * for the same key have settled (whether they succeeded or failed). Other keys are not held up.
 */
export class KeyedLock {
  private tails = new Map<string, Promise<void>>()

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    const result = previous.then(task)
    const tail = result.then(
      () => {},
      () => {},
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }

  /** Whether a task for `key` is running or waiting. */
  held(key: string): boolean {
    return this.tails.has(key)
  }
}
