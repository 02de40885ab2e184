/**
 * One service's lifecycle operations (start, stop, clean, restart), run one after another. A call
 * with the same verb as the operation under way, the latest one asked for, shares its outcome
 * instead of running again: two clicks, or a command from another extension during a click, never
 * start a second server.
 */
import type { Outcome } from '../core/outcome';

/** Runs operations per key (a service kind) one at a time; see the file comment. */
export class LifecycleQueue<Key extends string, Verb extends string> {
  private readonly inFlight = new Map<Key, { readonly verb: Verb; readonly done: Promise<Outcome> }>();

  /**
   * @param onError turns an operation that threw into its outcome (the queue never rejects)
   */
  constructor(private readonly onError: (key: Key, err: unknown) => Outcome) {}

  /**
   * Runs `operation` for `key` after the one under way, if any; or, when the one under way (the
   * latest asked for) has the same `verb`, returns its outcome without running again.
   * @returns the operation's outcome; never rejects (a throw goes through `onError`)
   */
  run(key: Key, verb: Verb, operation: () => Promise<Outcome>): Promise<Outcome> {
    const current = this.inFlight.get(key);
    if (current !== undefined && current.verb === verb) return current.done;
    const done: Promise<Outcome> = (current?.done ?? Promise.resolve<Outcome>({ ok: true }))
      .then(operation)
      .catch((err: unknown) => this.onError(key, err))
      .finally(() => { if (this.inFlight.get(key)?.done === done) this.inFlight.delete(key); });
    this.inFlight.set(key, { verb, done });
    return done;
  }

  /** The verb of the latest operation asked for `key` while it has not finished (undefined when none runs or waits). */
  latest(key: Key): Verb | undefined {
    return this.inFlight.get(key)?.verb;
  }

  /**
   * Resolves when the operations for `key` have finished: those asked for so far and those queued
   * while it waits (at once when none runs). Never rejects.
   */
  async settled(key: Key): Promise<void> {
    for (let current = this.inFlight.get(key); current !== undefined; current = this.inFlight.get(key)) await current.done;
  }
}
