/** A bounded least-recently-set cache: past `size` entries, the one set longest ago leaves. */
export class Lru<T> {
  private map = new Map<string, T>()
  constructor(private size: number) {}
  get(id: string) {
    return this.map.get(id)
  }
  set(id: string, value: T) {
    this.map.delete(id)
    this.map.set(id, value)
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!)
  }
}
