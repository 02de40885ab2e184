/**
 * The status bar: one item per service (Blob, Queue, Table) and the memory meter, redrawn from the
 * emulator's state and memory events.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { endpointUrl } from '../core/connectionString';
import { SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import { memoryView, serviceView } from '../core/statusView';
import type { ServiceState } from '../core/lifecycle';
import type { Emulator } from '../emulator/emulator';
import { ATTACH_SETTING, type AttachTarget } from '../core/attach';
import { OPEN_SETTINGS } from '../core/commandIds';
import { StatusItem, type StatusItemSnapshot } from './statusItem';

/** How often the on-disk size of running disk-mode services is measured, in ms. */
export const DISK_REFRESH_MS = 15_000;

/**
 * The longest the service items wait for the engine's warm-up before they appear anyway, in ms from
 * activation. The warm-up takes a few hundred ms in a window that is still opening (bench/README.md,
 * "First click"); on a machine slow enough to take longer, the items should not stay away.
 */
export const REVEAL_WAIT_MS = 2_000;

/** Item ids: `azurite.blob`, `azurite.queue`, `azurite.table`, `azurite.memory`, `azurite.attach`. */
export type StatusItemKey = ServiceKind | 'memory' | 'attach';

/** The attached Azurite, for its item (src/ui/dataTarget.ts). */
export interface Attachment {
  attached(): AttachTarget | undefined;
  readonly onDidChange: vscode.Event<void>;
}

/** This machine's addresses other machines can use (non-internal interfaces), IPv4 first. */
function networkAddresses(): string[] {
  const all = Object.values(os.networkInterfaces()).flat().filter((a): a is os.NetworkInterfaceInfo => a !== undefined && !a.internal);
  return [...all.filter((a) => a.family === 'IPv4'), ...all.filter((a) => a.family !== 'IPv4' && !a.address.startsWith('fe80'))].map((a) => a.address);
}

/**
 * Owns the status bar items: one per service and the memory meter; while `azurite.attach` is set,
 * only the attached item (no start or stop, no memory meter).
 */
export class StatusBar implements vscode.Disposable {
  private readonly items: Record<StatusItemKey, StatusItem>;
  private readonly subscriptions: { dispose(): void }[] = [];

  /** Bytes on disk per service (disk mode), refreshed on state changes and every DISK_REFRESH_MS while running. */
  private readonly diskBytes: Partial<Record<ServiceKind, number>> = {};
  /** Counts each service's stops: a disk measurement begun before the last one is of data gone since. */
  private readonly diskRuns: Record<ServiceKind, number> = { blob: 0, queue: 0, table: 0 };
  private diskTimer: NodeJS.Timeout | undefined;

  /**
   * Why the service items may show: the warm-up settled, a service changed state, the wait ran out,
   * or at once (no warm-up). Undefined while they wait (see the constructor's `engineReady`).
   */
  revealedBy: 'warm-up' | 'state' | 'timeout' | 'no warm-up' | undefined;
  private revealTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  /**
   * @param warningThreshold percent for the meter's warning colour (`azurite.memory.warningThreshold`)
   * @param attachment the attached Azurite (`azurite.attach`), whose item replaces the others
   * @param engineReady the engine's warm-up: the Blob, Queue and Table items appear when it settles,
   *   at the first change of a service's state (a start from the palette, a task, the autostart), or
   *   after {@link REVEAL_WAIT_MS}, whichever comes first, so that a click on an item only starts the
   *   server. Undefined (the warm-up is off): they appear at once.
   */
  constructor(private readonly emulator: Emulator, private readonly warningThreshold: () => number = () => 80, private readonly attachment?: Attachment, engineReady?: Promise<void>) {
    const items = {} as Record<StatusItemKey, StatusItem>;
    SERVICE_KINDS.forEach((kind, i) => {
      items[kind] = new StatusItem(`azurite.${kind}`, `Azurite ${serviceName(kind)}`, 100 - i);
    });
    items.memory = new StatusItem('azurite.memory', 'Azurite Memory', 100 - SERVICE_KINDS.length);
    items.attach = new StatusItem('azurite.attach', 'Azurite (attached)', 100);
    this.items = items;
    if (engineReady === undefined) this.revealedBy = 'no warm-up';
    else {
      this.revealTimer = setTimeout(() => this.reveal('timeout'), REVEAL_WAIT_MS);
      void engineReady.then(() => this.reveal('warm-up'));
    }
    if (attachment !== undefined) this.subscriptions.push(attachment.onDidChange(() => this.refresh()));
    this.subscriptions.push(
      emulator.onDidChangeState(({ kind, state }) => {
        this.reveal('state');
        // A size measured before is of data a Clean may delete, or of a folder a restart leaves
        // (a new azurite.location): the next run shows none until measured again.
        if (state.status !== 'running') {
          delete this.diskBytes[kind];
          // A measurement under way is of data from before (a Clean deletes it): its figure is dropped.
          this.diskRuns[kind]++;
        }
        this.renderService(kind);
        this.renderMemory();
        this.measureDisk(true);
      }),
      emulator.onDidChangeMemory(() => this.renderMemory()),
      emulator.onDidChangeServedElsewhere((kind) => this.renderService(kind)),
      emulator.onDidChangeStartsUnderWay((kind) => this.renderService(kind)),
    );
    this.refresh();
  }

  /** Lets the service items show from now on (once; later calls do nothing). */
  private reveal(by: NonNullable<StatusBar['revealedBy']>): void {
    if (this.revealedBy !== undefined || this.disposed) return;
    this.revealedBy = by;
    clearTimeout(this.revealTimer);
    this.refresh();
  }

  /** Redraws every item (after a settings change). */
  refresh(): void {
    for (const kind of SERVICE_KINDS) this.renderService(kind);
    this.renderMemory();
    this.renderAttach();
  }

  private renderAttach(): void {
    const t = this.attachment?.attached();
    if (t === undefined) {
      this.items.attach.render({ text: '', tooltip: '', accessibilityLabel: '', command: undefined, severity: 'normal', linkCommands: [] }, false);
      return;
    }
    const rows = (['blob', 'queue', 'table'] as const).filter((k) => t[k] !== undefined).map((k) => `- ${serviceName(k)}: \`${t[k]}\``);
    const settings = `command:${OPEN_SETTINGS}?${encodeURIComponent(JSON.stringify(ATTACH_SETTING))}`;
    this.items.attach.render({
      text: `$(plug) Azurite: ${t.label}`,
      tooltip: [`**Attached** to the Azurite at ${t.label} (account \`${t.accountName}\`), set by \`${ATTACH_SETTING}\`.`, '', ...rows, '',
        'It is started and stopped where it runs; the Storage view, Export and Import work on it.', '', `[Change ${ATTACH_SETTING}](${settings})`].join('\n'),
      accessibilityLabel: `Azurite: attached to the Azurite at ${t.label} (${ATTACH_SETTING})`,
      command: undefined,
      severity: 'normal',
      linkCommands: [OPEN_SETTINGS],
    });
  }

  private isAttached(): boolean {
    return this.attachment?.attached() !== undefined;
  }

  /** What each item shows now, by key. */
  snapshot(): Record<StatusItemKey, StatusItemSnapshot> {
    const out = {} as Record<StatusItemKey, StatusItemSnapshot>;
    for (const key of Object.keys(this.items) as StatusItemKey[]) out[key] = this.items[key].snapshot();
    return out;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.revealTimer);
    clearInterval(this.diskTimer);
    for (const s of this.subscriptions) s.dispose();
    for (const item of Object.values(this.items)) item.dispose();
  }

  private renderService(kind: ServiceKind): void {
    const status = this.emulator.status(kind);
    // A start asked for shows at once, also while it waits (the engine's load, a stop before it, its checks).
    const state: ServiceState = status.status === 'closed' && this.emulator.startsUnderWay().includes(kind) ? { status: 'starting' } : status;
    const options = this.emulator.options;
    // A running service keeps the mode and folder it started with until it restarts, and a stopping
    // one saves there: not what the settings say since.
    const inUse = this.emulator.dataInUse(kind);
    const inMemory = inUse?.inMemory ?? options.inMemoryPersistence;
    const newest = this.emulator.newestApiVersion(kind);
    this.items[kind].render(serviceView({
      kind,
      state,
      configuredPort: this.emulator.portSettingInvalid(kind) ? undefined : options.services[kind].port,
      inMemory,
      location: inUse?.location ?? this.emulator.dataLocation(kind),
      accountUrl: state.status === 'running' ? endpointUrl(this.emulator.clientAddress(kind)) : undefined,
      settingErrors: this.emulator.settingErrors(kind),
      // Measured while it runs; a stopped service's files may be cleaned or its location changed since.
      ...(this.diskBytes[kind] !== undefined && !inMemory && state.status === 'running' ? { diskBytes: this.diskBytes[kind] } : {}),
      ...(newest !== undefined ? { apiVersion: { newest, check: options.apiVersionCheck } } : {}),
      ...(state.status === 'running' ? { networkAddresses: networkAddresses(), restartPending: this.emulator.servicesNeedingRestart().includes(kind) } : {}),
      ...(state.status === 'closed' && this.emulator.servedElsewhereKinds().includes(kind) ? { servedElsewhere: true } : {}),
    }), this.revealedBy !== undefined && !this.isAttached());
  }

  private renderMemory(): void {
    this.items.memory.render(memoryView(this.emulator.memoryReport(), this.warningThreshold()), this.emulator.isMemoryInUse() && !this.isAttached());
  }

  /** The services whose data folder is being measured now. */
  private readonly measuring = new Set<ServiceKind>();
  /** The services whose state changed while a measurement ran: measured again once it ends. */
  private readonly remeasure = new Set<ServiceKind>();

  /**
   * Measures each running disk-mode service's data on disk for its tooltip; keeps a timer only while
   * one runs (sizes change with writes, which send no events in disk mode).
   * @param stateChanged a service started, stopped or was cleaned: a measurement begun before may be of data gone since
   */
  private measureDisk(stateChanged = false): void {
    const kinds = this.emulator.runningKinds().filter((k) => !this.emulator.isRunningInMemory(k));
    for (const kind of kinds) {
      // One measurement at a time per service (a large folder takes a while), and one of a folder the
      // service no longer uses (a restart to a new azurite.location meanwhile) is dropped. One that
      // a Clean overtook is shown, then followed at once by a new one (not only at the next tick).
      if (this.measuring.has(kind)) {
        if (stateChanged) this.remeasure.add(kind);
        continue;
      }
      this.measuring.add(kind);
      const location = this.emulator.dataLocation(kind);
      const run = this.diskRuns[kind];
      void this.emulator.diskUsageBytes(kind).then((bytes) => {
        if (this.emulator.dataLocation(kind) !== location || this.diskRuns[kind] !== run || this.diskBytes[kind] === bytes) return;
        this.diskBytes[kind] = bytes;
        this.renderService(kind);
      }).finally(() => {
        this.measuring.delete(kind);
        if (this.remeasure.delete(kind) && !this.disposed) this.measureDisk();
      });
    }
    if (kinds.length > 0 && this.diskTimer === undefined) this.diskTimer = setInterval(() => this.measureDisk(), DISK_REFRESH_MS);
    if (kinds.length === 0 && this.diskTimer !== undefined) {
      clearInterval(this.diskTimer);
      this.diskTimer = undefined;
    }
  }
}
