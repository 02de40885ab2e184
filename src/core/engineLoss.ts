/**
 * The words for an engine that ended under the services (a crash, out of memory, an uncaught
 * exception), and for a service that Azurite closed by itself: what happened, which services
 * stopped, what data is gone and what is kept, and what to do. Pure: no vscode, no azurite.
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

/**
 * The message shown and logged when Azurite closes a running service by itself. In azurite 3.37
 * only its GC does that, after a "critical error" (blob/BlobServer.js, queue/QueueServer.js), and
 * the causes it names are a database format written by another version, file system permissions
 * and corrupted metadata files. The service has been stopped as a stop would leave it.
 * @param kind the service (blob or queue)
 * @param inMemory whether it ran in memory mode (its data is then gone)
 * @param location the data folder (disk mode), absolute
 * @param gcError the GC error's message, when Azurite logged one
 * @param saveError disk mode: why saving after the close failed, when it did
 * @returns one paragraph, e.g. "Azurite closed the Blob service: its garbage collection failed
 *   (Cannot read properties of null (reading 'id')). …"
 */
export function describeSelfClosure(kind: ServiceKind, inMemory: boolean, location: string, gcError: string | undefined, saveError: string | undefined): string {
  const name = serviceName(kind);
  const parts = [gcError !== undefined
    ? `Azurite closed the ${name} service: its garbage collection of unused content failed (${gcError.replace(/\.$/, '')}).`
    : `Azurite closed the ${name} service after an internal error (turn on azurite.debug to see Azurite's log).`];
  if (inMemory) {
    parts.push(`Its in-memory data is gone. Start ${name} to run it again.`);
  } else {
    parts.push(saveError === undefined
      ? `Its data on disk was saved as Azurite had it.`
      : `Saving its data failed (${saveError.replace(/\.$/, '')}): what is on disk is from its last save.`);
    parts.push(`Azurite names as causes data files written by another version of Azurite, file permissions, and corrupted metadata files in ${JSON.stringify(location)} (azurite.location). Start ${name} to try again; if it closes again, point azurite.location at another folder, or run Azurite: Clean ${name} Service to start from empty data (it deletes the data).`);
  }
  return parts.join(' ');
}
