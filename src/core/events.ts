/**
 * A minimal typed event emitter for the VS Code-free layers (the shape of vscode.EventEmitter:
 * `event(listener)` returns a disposable). Listeners run synchronously in subscription order; a
 * throwing listener does not stop the others.
 */

/** Something that can be disposed (matches vscode.Disposable structurally). */
export interface Disposable {
  dispose(): void;
}

/** Subscribe function: `onDidX(listener)`. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

/** Emits values of type T to listeners. */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** Subscribes a listener; dispose the result to unsubscribe. */
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  /** Calls every listener with `value`. Errors are reported to `console.error` and swallowed. */
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (err) {
        console.error(err);
      }
    }
  }

  /** Removes every listener. */
  dispose(): void {
    this.listeners.clear();
  }
}
