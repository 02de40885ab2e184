/**
 * The words for an engine that ended under the services (a crash, out of memory, an uncaught
 * exception): what happened, which services stopped, what data is gone and what is kept, and what
 * to do. Pure: no vscode, no azurite.
 */
import { serviceName, type ServiceKind } from './services';

/**
 * The message shown and logged when the engine's process ends without being asked to.
 * @param reason why it ended, as a clause ("it ran out of memory (azurite.engine.heapLimit is 4096 MB)")
 * @param stopped the services that were running in it, in SERVICE_KINDS order
 * @param inMemory which of `stopped` ran in memory mode (their data is gone; the others' is on disk
 *   up to its last save)
 * @returns one paragraph, e.g. "The emulator engine stopped: it was ended by SIGKILL. Blob, Queue are
 *   stopped. In-memory data of Blob and Queue is gone. Start a service to bring a new engine up."
 */
export function describeEngineLoss(reason: string, stopped: readonly ServiceKind[], inMemory: (kind: ServiceKind) => boolean): string {
  const lost = stopped.filter(inMemory);
  const kept = stopped.filter((k) => !inMemory(k));
  const parts = [`The emulator engine stopped: ${reason}.`];
  if (stopped.length > 0) parts.push(`${stopped.map(serviceName).join(', ')} ${stopped.length === 1 ? 'is' : 'are'} stopped.`);
  if (lost.length > 0) parts.push(`In-memory data of ${lost.map(serviceName).join(' and ')} is gone.`);
  if (kept.length > 0) parts.push(`Data on disk is kept, up to its last save (${kept.map(serviceName).join(', ')}).`);
  parts.push('Start a service to bring a new engine up.');
  return parts.join(' ');
}
