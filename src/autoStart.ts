/**
 * `azurite.autoStart`: start services when a workspace opens, silently — no notification on
 * success, only failures are shown — and skip a service whose port already answers as that
 * service of an Azurite, over HTTP or HTTPS (another window or the Azurite CLI is serving it). Nothing starts while `azurite.attach` is set: the
 * window works with that Azurite, and a local start would be refused.
 */
import { readExtensionSettings } from './config';
import { failure } from './core/outcome';
import { parseAutoStart, serviceName, type ServiceKind } from './core/services';
import type { Emulator } from './emulator/emulator';
import { isAzuriteService, probePortHolder } from './emulator/ports';
import { showOutcome, type NotifyDeps } from './ui/notify';

/**
 * Starts the configured services. Resolves when done; never rejects.
 * @param deps also `attached()`, the Azurite of `azurite.attach` (its label) while it is set
 * @param info writes a line to the output channel
 */
export async function autoStart(emulator: Emulator, deps: NotifyDeps & { readonly attached: () => { readonly label: string } | undefined }, info: (line: string) => void): Promise<void> {
  const kinds = parseAutoStart(readExtensionSettings().autoStart);
  if (!Array.isArray(kinds)) {
    showOutcome(failure('setting', kinds.error, { setting: 'azurite.autoStart' }), deps);
    return;
  }
  if (kinds.length === 0) return;
  const attached = deps.attached();
  if (attached !== undefined) {
    info(`autoStart: nothing started, the window is attached to the Azurite at ${attached.label} (azurite.attach)`);
    return;
  }
  if (!(await deps.prepareStart())) return;
  await Promise.all(kinds.map(async (kind) => {
    const elsewhere = await servedElsewhere(emulator, kind);
    if (elsewhere !== undefined) {
      info(`autoStart: ${serviceName(kind)} skipped, ${elsewhere}`);
      return;
    }
    const outcome = await emulator.start(kind);
    if (outcome.ok) info(`autoStart: ${serviceName(kind)} started`);
    else showOutcome(outcome, deps);
  }));
}

/**
 * Whether the same service of another Azurite (another window, the CLI, a container) answers on
 * the port `kind` is configured for, over HTTP or HTTPS: it serves the workspace already, and a
 * start here would only fail on the taken port. Any other holder (another service of an Azurite,
 * another program) is left to the start, which says why it cannot listen.
 * @returns what answers ("127.0.0.1:10000 already answers as Azurite-Blob/3.35.0"), or undefined
 *   when nothing does, something else does, or the port is 0 (a free one is picked)
 */
export async function servedElsewhere(emulator: Emulator, kind: ServiceKind): Promise<string | undefined> {
  const { host, port } = emulator.options.services[kind];
  if (port === 0) return undefined;
  const holder = await probePortHolder(host, port);
  return isAzuriteService(holder, kind) ? `${host}:${port} already answers as ${holder.server ?? 'Azurite'}` : undefined;
}
