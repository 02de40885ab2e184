/**
 * A figure that costs a walk over every record on the engine's thread (the LokiJS metadata estimate
 * of the memory view), made again only once the time since it was last made is at least `1 / duty`
 * times what making it took: asked for as often as anyone likes, it never takes more than `duty` of
 * the thread that serves requests. A figure that takes 1 ms is fresh after 20 ms (at `duty` 0.05),
 * one that takes 100 ms (a hundred thousand blobs) after 2 s.
 */
export class DutyBoundValue<T> {
  private last: { readonly value: T; readonly at: number; readonly tookMs: number; readonly key: string } | undefined;

  /**
   * @param duty the largest share of the thread's time the figure may take, between 0 and 1
   * @param now the clock, ms (performance.now() by default)
   */
  constructor(private readonly duty: number, private readonly now: () => number = () => performance.now()) {}

  /**
   * The figure: the one made last while it is recent enough and was made for the same `key`, else
   * `compute()`'s, timed.
   * @param key what the figure is of (the running services): a new key makes it again at once
   */
  get(key: string, compute: () => T): T {
    const start = this.now();
    const last = this.last;
    if (last !== undefined && last.key === key && start - last.at < last.tookMs / this.duty) return last.value;
    const value = compute();
    const end = this.now();
    this.last = { value, at: end, tookMs: end - start, key };
    return value;
  }
}
