/**
 * `azurite.autoStart`: start services when a workspace opens, silently — no notification on
 * success, only failures are shown — and skip a service whose port already answers as that
 * service of an Azurite, over HTTP or HTTPS (another window or the Azurite CLI is serving it), before
 * anything is asked: the data folder question of a multi-root workspace comes only when a service is
 * left to start. Probed again right before each start, and a start that finds the port taken by an
 * Azurite meanwhile counts as a skip. Nothing starts while `azurite.attach` is set: the window works with that Azurite,
 * and a local start would be refused.
 */
import { readExtensionSettings } from './config';
import { failure } from './core/outcome';
import { parseAutoStart, serviceName } from './core/services';
import type { Emulator } from './emulator/emulator';
import { showOutcome, type NotifyDeps } from './ui/notify';

/** What {@link autoStart} needs besides the emulator: also `attached()`, the Azurite of `azurite.attach` (its label) while it is set. */
type AutoStartDeps = NotifyDeps & { readonly attached: () => { readonly label: string } | undefined };

/**
 * Starts the configured services. Resolves when done; never rejects: what throws on the way (the
 * data folder question's answer that cannot be kept in the workspace's state, say) is shown as an
 * error naming `azurite.autoStart`, not left an unhandled rejection with nothing started or said.
 * @param info writes a line to the output channel
 */
export async function autoStart(emulator: Emulator, deps: AutoStartDeps, info: (line: string) => void): Promise<void> {
  try {
    await startConfigured(emulator, deps, info);
  } catch (err) {
    showOutcome(failure('other', `Azurite: azurite.autoStart did not start the services: ${err instanceof Error ? err.message : String(err)}. Start them from the status bar or the palette.`, { setting: 'azurite.autoStart' }), deps);
  }
}

async function startConfigured(emulator: Emulator, deps: AutoStartDeps, info: (line: string) => void): Promise<void> {
  const kinds = parseAutoStart(readExtensionSettings().autoStart);
  if (!Array.isArray(kinds)) {
    showOutcome(failure('setting', kinds.error, { setting: 'azurite.autoStart' }), deps);
    return;
  }
  if (kinds.length === 0) return;
  const attachedNow = (): boolean => {
    const attached = deps.attached();
    if (attached !== undefined) info(`autoStart: nothing started, the window is attached to the Azurite at ${attached.label} (azurite.attach)`);
    return attached !== undefined;
  };
  if (attachedNow()) return;
  // Probed before anything is asked: a service another Azurite serves needs no data folder, and a
  // dismissed question must not keep that Azurite from terminals and debug sessions.
  const elsewhere = await Promise.all(kinds.map((kind) => emulator.servedElsewhere(kind)));
  kinds.forEach((kind, i) => { if (elsewhere[i] !== undefined) info(`autoStart: ${serviceName(kind)} skipped, ${elsewhere[i]}`); });
  const toStart = kinds.filter((_, i) => elsewhere[i] === undefined);
  if (toStart.length === 0) return;
  if (!(await deps.prepareStart())) return;
  // Set while the data-folder question (or the reading of the password and accounts) was open.
  if (attachedNow()) return;
  await Promise.all(toStart.map(async (kind) => {
    // Probed again: the question may have stayed open while another window or the Azurite CLI
    // began serving the port (or it takes the port between the probe and the listen).
    const started = await emulator.startUnlessServed(kind);
    if ('servedElsewhere' in started) info(`autoStart: ${serviceName(kind)} skipped, ${started.servedElsewhere}`);
    else if (started.outcome.ok) info(`autoStart: ${serviceName(kind)} started`);
    else showOutcome(started.outcome, deps);
  }));
}
