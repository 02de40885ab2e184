/**
 * Pure rendering of the status bar items: state in, text/tooltip/command/severity out
 * (the pattern of VS Code's git extension `statusbar.ts`: the item holds state, this draws it).
 */
import type { ApiVersionCheck } from './apiVersions';
import { COMMANDS, OPEN_SETTINGS, serviceCommand } from './commandIds';
import type { ServiceState } from './lifecycle';
import { describeMemory, formatBytes, formatUsage, percentUsed, type MemoryReport } from './memory';
import { serviceName, type ServiceKind } from './services';
import { DEV_ACCOUNT_NAME } from './connectionString';
import { describeListenHost, isLoopbackHost, reachableUrls } from './hosts';

/** How an item is coloured: `error` maps to `statusBarItem.errorBackground`, `warning` to the warning one. */
export type Severity = 'normal' | 'warning' | 'error';

/** What a status bar item shows. `tooltip` is Markdown whose `command:` links are in `linkCommands`. */
export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
  /**
   * What a screen reader says for the item, in words: the state, the reason of a failure, the level
   * of the memory meter (the background colour says it to the eye only), and what a press does.
   * Without it VS Code reads the icon names and the whole Markdown tooltip.
   */
  readonly accessibilityLabel: string;
  /** The command a click runs, or undefined while a transition is under way. */
  readonly command: string | undefined;
  readonly severity: Severity;
  /** Command ids the tooltip links to (to mark trusted). */
  readonly linkCommands: readonly string[];
}

/** What a service item is drawn from. */
export interface ServiceViewInput {
  readonly kind: ServiceKind;
  readonly state: ServiceState;
  /** The configured port (shown while stopped); undefined when `azurite.<kind>Port` is not a valid value. */
  readonly configuredPort: number | undefined;
  readonly inMemory: boolean;
  /** Absolute data folder (disk mode). */
  readonly location: string;
  /** Endpoint URL with account, e.g. http://127.0.0.1:10000/devstoreaccount1, while running. */
  readonly accountUrl?: string;
  /** Setting errors that stop this service from starting. */
  readonly settingErrors?: readonly string[];
  /** Bytes of this service's data on disk (disk mode), when known. */
  readonly diskBytes?: number;
  /** The newest `x-ms-version` the engine's service knows, when known, and the policy in force. */
  readonly apiVersion?: { readonly newest: string; readonly check: ApiVersionCheck };
  /** This machine's addresses other machines can use (non-internal), for a service on 0.0.0.0. */
  readonly networkAddresses?: readonly string[];
  /** True when settings it reads at start changed since it started (Emulator.servicesNeedingRestart: a restart put off with Later). */
  readonly restartPending?: boolean;
  /** True while stopped here when another Azurite was found serving it on its port (Emulator.servedElsewhereKinds). */
  readonly servedElsewhere?: boolean;
}

/** The tooltip line on API versions: the newest the engine knows, and what happens to newer ones. */
export function apiVersionLine(apiVersion: { readonly newest: string; readonly check: ApiVersionCheck }): string {
  const newest = apiVersion.newest;
  const text = {
    acceptNewer: `API versions: up to ${newest}; newer ones are served as ${newest}`,
    strict: `API versions: up to ${newest}; newer ones get HTTP 400 (azurite.apiVersionCheck: strict)`,
    off: `API versions: any (check off); the engine knows up to ${newest}`,
  }[apiVersion.check];
  return escapeMarkdown(text);
}

/**
 * Escapes text for a Markdown tooltip: every character Markdown could read as syntax gets a
 * backslash, `&` too (`R&amp;D.txt` would show as "R&D.txt": the renderer decodes entities) and
 * `~` (`~~old~~` would be struck through).
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => `\\${c}`);
}

function link(title: string, command: string): string {
  return `[${title}](command:${command})`;
}

/** Renders one service's status item. */
export function serviceView(input: ServiceViewInput): StatusView {
  const name = serviceName(input.kind);
  const start = serviceCommand('start', input.kind);
  const close = serviceCommand('close', input.kind);
  const clean = serviceCommand('clean', input.kind);
  const copy = COMMANDS.copyConnectionString;
  const data = input.inMemory
    ? 'Data: in memory (gone when the service stops)'
    : `Data: ${escapeMarkdown(input.location)}${input.diskBytes !== undefined ? ` (${formatBytes(input.diskBytes)} on disk)` : ''}`;
  const heading = `**Azurite ${name} service**`;
  const versions = input.apiVersion !== undefined ? [apiVersionLine(input.apiVersion)] : [];
  const state = input.state;
  switch (state.status) {
    case 'running': {
      const url = input.accountUrl ?? state.endpoint.url;
      const { host, port } = state.endpoint;
      const exposed = !isLoopbackHost(host);
      const where = exposed
        ? [
          `${heading} — running on ${escapeMarkdown(describeListenHost(host))}, port ${port}`,
          ...exposureLines(input.kind, host, port, url, input.networkAddresses ?? []),
        ]
        : [`${heading} — running on ${escapeMarkdown(url)}`];
      return {
        text: `$(check) ${name} :${state.endpoint.port}`,
        tooltip: [
          ...where,
          ...(input.restartPending === true ? ['$(sync) Settings changed since it started; they apply when it restarts: stop and start it (an in-memory service loses its data).'] : []),
          data,
          ...versions,
          `${link('Stop', close)} · ${link('Clean', clean)} · ${link('Copy connection string', copy)}`,
          '_Click to stop._',
        ].join('\n\n'),
        accessibilityLabel: `Azurite ${name} running on port ${port}${exposed ? ', reachable from other machines on your network' : ''}${input.restartPending === true ? ', settings changed since it started' : ''}. Press to stop.`,
        command: close,
        severity: exposed ? 'warning' : 'normal',
        linkCommands: [close, clean, copy],
      };
    }
    case 'starting':
    case 'closing':
    case 'cleaning': {
      const verb = { starting: 'starting', closing: 'stopping', cleaning: 'cleaning' }[state.status];
      return {
        text: `$(loading~spin) ${name}`,
        tooltip: `${heading} — ${verb}…\n\n${data}`,
        accessibilityLabel: `Azurite ${name} ${verb}`,
        command: undefined,
        severity: 'normal',
        linkCommands: [],
      };
    }
    case 'closed': {
      // A start refused by settings keeps their messages as its error: show each setting error once.
      const settingErrors = input.settingErrors ?? [];
      const stateError = state.error !== undefined && state.error !== settingErrors.join(' ') && !settingErrors.includes(state.error) ? [state.error] : [];
      const problems = [...settingErrors, ...stateError];
      const failed = problems.length > 0;
      const port = input.configuredPort === undefined ? `azurite.${input.kind}Port is not valid` : input.configuredPort === 0 ? 'any free port' : `port ${input.configuredPort}`;
      const elsewhere = input.servedElsewhere === true && !failed;
      const lines = [
        `${heading} — ${failed ? 'not running' : elsewhere ? 'stopped here, served by another Azurite' : 'stopped'} (${port})`,
        ...(elsewhere ? ['Another Azurite (another window\'s, the CLI, a container) answers on this port: terminals and debug sessions get its address. Starting it here needs another port.'] : []),
        ...problems.map((p) => `$(error) ${escapeMarkdown(p)}`),
        data,
        ...versions,
        `${link('Start', start)} · ${link('Clean', clean)}${failed ? ` · ${link('Open Settings', `${OPEN_SETTINGS}?%5B%22azurite%22%5D`)}` : ''}`,
        '_Click to start._',
      ];
      return {
        text: `${failed ? '$(error)' : '$(debug-start)'} ${name}`,
        tooltip: lines.join('\n\n'),
        accessibilityLabel: `Azurite ${name} ${failed ? `not running: ${problems.join(' ')}` : elsewhere ? `stopped here, served by another Azurite (${port})` : `stopped (${port})`}. Press to start.`,
        command: start,
        severity: failed ? 'error' : 'normal',
        linkCommands: failed ? [start, clean, OPEN_SETTINGS] : [start, clean],
      };
    }
  }
}

/**
 * The tooltip lines of a service other machines can reach: where they reach it, that the account
 * key is public, and where this machine reaches it.
 */
function exposureLines(kind: ServiceKind, host: string, port: number, localUrl: string, networkAddresses: readonly string[]): string[] {
  const urls = reachableUrls(host, port, localUrl.startsWith('https:'), networkAddresses, DEV_ACCOUNT_NAME);
  const at = urls.length > 0 ? urls.map(escapeMarkdown).join(', ') : `this machine's network addresses, port ${port}`;
  return [
    `$(warning) Reachable from other machines on your network at ${at}`,
    escapeMarkdown(`The account key is the public development key (devstoreaccount1's, in Microsoft's docs): anyone who reaches this port can read, change and delete the data. azurite.${kind}Host: 127.0.0.1 keeps it on this machine.`),
    `This machine: ${escapeMarkdown(localUrl)}`,
  ];
}

/** Percent of the limit from which the meter turns to the error colour. */
export const MEMORY_ERROR_PERCENT = 95;

/**
 * The meter's level: `error` from {@link MEMORY_ERROR_PERCENT}, `warning` from `warningThreshold`
 * (percent, `azurite.memory.warningThreshold`), else normal.
 */
export function memoryLevel(report: MemoryReport, warningThreshold: number): Severity {
  const pct = percentUsed(report);
  return pct >= MEMORY_ERROR_PERCENT ? 'error' : pct >= warningThreshold ? 'warning' : 'normal';
}

/**
 * The meter's level in words, for those who do not see its colour: " — near the limit" (error),
 * " — above the 80% warning threshold" (warning), '' (normal).
 */
export function memoryLevelWords(report: MemoryReport, warningThreshold: number): string {
  const level = memoryLevel(report, warningThreshold);
  return level === 'error' ? ' — near the limit' : level === 'warning' ? ` — above the ${warningThreshold}% warning threshold` : '';
}

/** Renders the memory meter: "$(database) 0.9 MB / 1 MB" and the full report as a tooltip. */
export function memoryView(report: MemoryReport, warningThreshold = 80): StatusView {
  return {
    text: `$(database) ${formatUsage(report)}`,
    tooltip: ['**Azurite in-memory storage**', ...describeMemory(report).map(escapeMarkdown), `${link('Show memory usage', COMMANDS.showMemoryUsage)} · ${link('Reclaim memory', COMMANDS.reclaimMemory)}`].join('\n\n'),
    accessibilityLabel: `Azurite in-memory storage: ${formatUsage(report)}, ${percentUsed(report)} percent${memoryLevelWords(report, warningThreshold)}. Press to show memory usage.`,
    command: COMMANDS.showMemoryUsage,
    severity: memoryLevel(report, warningThreshold),
    linkCommands: [COMMANDS.showMemoryUsage, COMMANDS.reclaimMemory],
  };
}
