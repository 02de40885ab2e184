/**
 * How much memory a process of ours may use: read in the extension host (to word why an engine was
 * killed) and in the engine's process (the default extent limit).
 */
import * as os from 'node:os';

/**
 * The memory this process may use, in bytes: the machine's (`os.totalmem()`), or less where a
 * control group caps it (a container, a dev container: `process.constrainedMemory()`, which Node
 * reads from the cgroup; 0 or undefined when there is no cap, or a number above the machine's).
 * The engine's process, forked from the extension host, shares that cap.
 */
export function systemMemoryBytes(): number {
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.() ?? 0;
  return constrained > 0 ? Math.min(os.totalmem(), constrained) : os.totalmem();
}
