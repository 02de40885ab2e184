/**
 * `azurite.autoStart`: start services when a workspace opens, silently — no notification on
 * success, only failures are shown — and skip a service whose port already answers as an Azurite
 * (another window or the Azurite CLI is serving it).
 */
import { readExtensionSettings } from './config';
import { failure } from './core/outcome';
import { parseAutoStart, serviceName } from './core/services';
import type { Emulator } from './emulator/emulator';
import { probePortHolder } from './emulator/ports';
import { showOutcome, type NotifyDeps } from './ui/notify';

/**
 * Starts the configured services. Resolves when done; never rejects.
 * @param info writes a line to the output channel
 */
export async function autoStart(emulator: Emulator, deps: NotifyDeps, info: (line: string) => void): Promise<void> {
  const kinds = parseAutoStart(readExtensionSettings().autoStart);
  if (!Array.isArray(kinds)) {
    showOutcome(failure('setting', kinds.error, { setting: 'azurite.autoStart' }), deps);
    return;
  }
  if (kinds.length === 0 || !(await deps.prepareStart())) return;
  await Promise.all(kinds.map(async (kind) => {
    const { host, port } = emulator.options.services[kind];
    if (port !== 0) {
      const holder = await probePortHolder(host, port);
      if (holder.kind === 'azurite') {
        info(`autoStart: ${serviceName(kind)} skipped, ${host}:${port} already answers as ${holder.server ?? 'Azurite'}`);
        return;
      }
    }
    const outcome = await emulator.start(kind);
    if (outcome.ok) info(`autoStart: ${serviceName(kind)} started`);
    else showOutcome(outcome, deps);
  }));
}
