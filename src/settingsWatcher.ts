/**
 * Live settings: every `azurite.*` change reaches the emulator at once; running services whose
 * settings changed are restarted — at once when their data is on disk (it survives), after asking
 * (Restart Now / Later) when a restart would drop in-memory data, unless
 * `azurite.restartOnConfigChange` is on; either once the settings have stayed unchanged for
 * RESTART_QUIET_MS (the Settings editor writes while the user types). A change of the memory limit
 * while in-memory data is held reaches the emulator after the same wait, since the engine applies it
 * live. The question is asked once per change of the settings that
 * need the restart: after Later (or while it is open), other changes do not ask it again. A restart
 * first asks what a start asks (NotifyDeps.prepareStart: a multi-root workspace's data folder), and
 * waits for a Reset, Import or Export under way to end. A service a restart stopped and could not
 * start again (a port taken) starts once what its failure named changes (the port, set by hand). Pattern:
 * rust-analyzer's config.ts restart-required keys.
 */
import * as vscode from 'vscode';
import { affectsEmulator, readExtensionSettings } from './config';
import { EXTENT_LIMIT_SETTING } from './emulator/engineHost';
import { failureFixed, needsRestart } from './core/configChange';
import type { EmulatorOptions } from './core/settings';
import { serviceName, type ServiceKind } from './core/services';
import type { Emulator } from './emulator/emulator';
import type { Failure, Outcome } from './core/outcome';
import { ATTACH_SETTING } from './core/attach';
import { notify, showOutcome, type NotifyDeps } from './ui/notify';
import { withDelayedProgress } from './ui/progress';

/**
 * How long settings that need a restart must stay unchanged before it is queued (ms). The Settings
 * editor writes a text or number setting each time typing pauses for about a second: without the
 * wait, a disk-mode service restarted on each partial value (a data folder made at "/home/u/pro",
 * a port 1 refused).
 */
export const RESTART_QUIET_MS = 1500;

/** Restarts run one batch at a time, in the order the changes came. */
export class SettingsWatcher implements vscode.Disposable {
  private restarts: Promise<void> = Promise.resolve();
  /** The wait for the settings to stay unchanged ({@link RESTART_QUIET_MS}) before restarts are looked for. */
  private readonly quiet = new QuietWait(RESTART_QUIET_MS);
  /**
   * A change of `azurite.extentMemoryLimit` while in-memory data is held, waiting for the settings to
   * stay unchanged ({@link RESTART_QUIET_MS}) before they are read: the limit applies live, and a
   * partial value typed on the way to "1500" (1, 15) would refuse clients' writes, or be refused
   * with a notification of its own.
   */
  private readonly limitQuiet = new QuietWait(RESTART_QUIET_MS);
  /** Set while {@link writeLimitWhole} writes: the change it makes applies at once. */
  private limitWritten = false;
  /** The last settings reload's live part (what the engine applies), until done. */
  private applying: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[];
  /**
   * The settings in force when the user was asked about restarting an in-memory service (the
   * question may still be open, or answered Later): not asked again until a setting that needs a
   * restart changes again, or the service stops.
   */
  private readonly asked = new Map<ServiceKind, EmulatorOptions>();
  /**
   * In-memory services the user answered Restart Now for, whose restart waits in the queue (for an
   * Import, say): a question is not asked about them again, as their data goes anyway.
   */
  private readonly restartQueued = new Set<ServiceKind>();
  /**
   * Services a restart for a settings change stopped and then could not start because of a setting
   * (a port taken: `azurite.blobPort`; a folder not writable: `azurite.location`), with that
   * setting's key and the options the start used: a change of what that failure is about starts
   * them again, as the restart would have ({@link failureFixed}). Forgotten once the service runs,
   * and when a start is refused while attached.
   */
  private readonly failedRestarts = new Map<ServiceKind, { readonly setting: string; readonly startedWith: EmulatorOptions; readonly stops: number }>();

  /**
   * @param reload re-reads the settings into the emulator and redraws; resolves to live-apply problems
   * @param dataIdle resolves when no Reset, Import or Export is under way: a restart waits for it
   *   (stopping a service under an import would break the import and its rollback)
   */
  constructor(
    private readonly emulator: Emulator,
    private readonly reload: () => Promise<readonly Failure[]>,
    private readonly deps: NotifyDeps,
    private readonly dataIdle: () => Promise<void> = () => Promise.resolve(),
  ) {
    // A start that ended after a change: restarted once the settings have stayed unchanged, as for
    // a change under a running service (the value may still be being typed).
    const stale = emulator.onDidStartWithStaleSettings(() => this.quiet.arm(() => this.restartWhereNeeded()));
    const states = emulator.onDidChangeState(({ kind, state }) => {
      if (state.status === 'closed') this.asked.delete(kind);
      if (state.status === 'running') this.failedRestarts.delete(kind);
    });
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsEmulator(e)) this.reread(e.affectsConfiguration(EXTENT_LIMIT_SETTING));
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.reread(false)),
      { dispose: () => { stale.dispose(); states.dispose(); } },
    ];
  }

  /** Resolves when every restart asked for so far has finished, the waits for quiet settings included (for tests). */
  async settled(): Promise<void> {
    await this.limitQuiet.done;
    await this.quiet.done;
    await this.applying;
    await this.restarts;
  }

  /** Applies settings that changed outside settings.json (the certificate password in Secret Storage) as a settings change. */
  refresh(): void {
    this.reread(false);
  }

  /**
   * Resolves once a memory limit change that waits for the settings to stay unchanged has been
   * read (at once when none waits): what a start waits for before it reads the settings, so that it
   * does not apply a value still being typed.
   */
  limitSettled(): Promise<void> {
    return this.limitQuiet.done;
  }

  /**
   * Writes `azurite.extentMemoryLimit` with `write` and applies it at once: a value written whole
   * (Raise Limit's input box), not typed, so the wait for the settings to stay unchanged would only
   * keep clients' writes refused longer. A typed change that waits meanwhile applies with it.
   * VS Code tells the extension host of a settings change before the write's promise resolves; one
   * told later waits as a typed change does.
   * @param write writes the setting; resolves to true when written
   * @returns what `write` resolves to; throws what it throws
   */
  async writeLimitWhole(write: () => Promise<boolean>): Promise<boolean> {
    this.limitWritten = true;
    let written = false;
    try {
      written = await write();
      return written;
    } finally {
      this.limitWritten = false;
      // Only what this write changed: a value still typed elsewhere (nothing written) waits on.
      if (written) this.limitQuiet.flush();
    }
  }

  /**
   * Reads the settings again: at once, or once they have stayed unchanged for
   * {@link RESTART_QUIET_MS} when the memory limit changed while in-memory data is held (not for
   * {@link writeLimitWhole}'s write). Any change while such a wait runs waits with it: read now, it
   * would apply the limit too.
   */
  private reread(limitChanged: boolean): void {
    if (this.limitWritten && limitChanged) {
      if (this.limitQuiet.waiting) this.limitQuiet.flush();
      else this.changed();
    } else if (this.limitQuiet.waiting || (limitChanged && this.emulator.isMemoryInUse())) this.changedWhenQuiet();
    else this.changed();
  }

  private changed(): void {
    // The settings are in force for the next start at once; what the engine applies live
    // (API-version policy, memory limit) reports its problems when done.
    // Never left rejected: the next change and every restart wait on it.
    this.applying = this.reload()
      .then((problems) => { for (const problem of problems) showOutcome(problem, this.deps); })
      .catch((err: unknown) => void notify('error', `Azurite: the settings could not be applied: ${(err as Error).message}`));
    this.restartWhenQuiet();
  }

  /**
   * Looks for restarts again (as after a change), for settings applied later than the reload this
   * watcher called returned control: one that first read a newly configured certificate's password.
   */
  lookForRestarts(): void {
    this.restartWhenQuiet();
  }

  /** {@link changed} once the settings have stayed unchanged for {@link RESTART_QUIET_MS} (each change starts the wait again). */
  private changedWhenQuiet(): void {
    this.limitQuiet.arm(() => this.changed());
  }

  /**
   * Looks for restarts to queue once the settings have stayed unchanged for {@link RESTART_QUIET_MS}
   * (each change starts the wait again); at once when no running service needs one and no failed
   * restart waits for a fix: a port typed after a conflict is tried once typed (10005, not 1, 10,
   * 100 and 1000 on the way), and a folder once its path is whole.
   */
  private restartWhenQuiet(): void {
    this.forgetStoppedFailures();
    // A limit that a refused start waits for was typed, and waited for, already (or written whole by Raise Limit).
    const typed = [...this.failedRestarts.values()].some((f) => f.setting !== EXTENT_LIMIT_SETTING);
    if (this.emulator.servicesNeedingRestart().length === 0 && !typed) {
      this.restartWhereNeeded();
      this.quiet.end();
      return;
    }
    this.quiet.arm(() => this.restartWhereNeeded());
  }

  /**
   * Restarts the running services whose settings changed: at once, or after asking when a restart
   * would drop in-memory data. Also for a service that finished a start begun before a change
   * (Emulator.onDidStartWithStaleSettings), which `changed()` could not restart. Starts again, too,
   * a service a failed restart left stopped once its setting is fixed ({@link retryFailedRestarts}).
   */
  private restartWhereNeeded(): void {
    // A service whose settings went back to those it runs with needs no restart: a question answered
    // Later about it is moot, and a change made again later asks again. (One kept from a restart by
    // an error that blocks it still differs: its question stands. A value that is not valid and
    // blocks nothing, `azurite.oauth: "basi"`, counts as unchanged: core/configChange.ts heldOptionKeys.)
    for (const k of [...this.asked.keys()]) if (this.emulator.runsWithCurrentSettings(k)) this.asked.delete(k);
    this.retryFailedRestarts();
    const kinds = this.emulator.servicesNeedingRestart();
    if (kinds.length === 0) return;
    const lossy = kinds.filter((k) => this.emulator.isRunningInMemory(k) && !this.restartQueued.has(k));
    if (lossy.length === 0 || readExtensionSettings().restartOnConfigChange) {
      this.queueRestart(kinds);
      return;
    }
    // Asked already about these very settings (the question is open, or the answer was Later).
    const options = this.emulator.options;
    const asked = (k: ServiceKind): boolean => {
      const then = this.asked.get(k);
      return then !== undefined && !needsRestart(k, then, options);
    };
    // Services with their data on disk (or whose restart the user already asked for) restart at
    // once, whatever the answer about the others.
    const others = kinds.filter((k) => !lossy.includes(k));
    if (others.length > 0) this.queueRestart(others);
    if (lossy.every(asked)) return;
    for (const k of lossy) this.asked.set(k, options);
    const names = (ks: ServiceKind[]) => ks.map(serviceName).join(', ');
    void notify('warning',
      `Azurite settings changed for ${names(lossy)}. Restarting drops the in-memory data of ${names(lossy)}.`,
      'Restart Now', 'Later',
    ).then((choice) => {
      // The services this question named, with the settings in force when the restart runs; not
      // one named only by a newer question still open. While the restart waits (for an Import,
      // say), a change does not ask about them again.
      if (choice === 'Restart Now') {
        for (const k of lossy) this.restartQueued.add(k);
        this.queueRestart(lossy, lossy);
      }
    });
  }

  /**
   * Shows a restart's (or its retry's) outcome. One whose start failed because of a setting, leaving
   * the service stopped, is remembered ({@link failedRestarts}); a start refused while the window is
   * attached to another Azurite is not retried and says nothing (the attach stopped the service).
   */
  private afterRestart(kind: ServiceKind, outcome: Outcome, startedWith: EmulatorOptions): void {
    if (!outcome.ok && outcome.setting === ATTACH_SETTING) {
      this.failedRestarts.delete(kind);
      return;
    }
    if (!outcome.ok && outcome.setting !== undefined && this.emulator.status(kind).status === 'closed' && !this.emulator.shuttingDown) {
      this.failedRestarts.set(kind, { setting: outcome.setting, startedWith, stops: this.emulator.stopsAsked(kind) });
    }
    // showOutcome leaves out a start refused because the extension is shutting down.
    showOutcome(outcome, this.deps);
  }

  /** Forgets the failed restarts of services a Stop (Azurite: Close, a service's Stop) or Clean was asked for since: the user wants them stopped. */
  private forgetStoppedFailures(): void {
    for (const [k, failed] of [...this.failedRestarts]) if (this.emulator.stopsAsked(k) !== failed.stops) this.failedRestarts.delete(k);
  }

  /**
   * Starts again, in the restart queue, the services a restart for a settings change left stopped
   * (its start failed because of a setting) once what that failure is about has changed since
   * ({@link failureFixed}), and no setting error stops them: the port set by hand after a conflict
   * brings the service back, as "Use Port N" does. Other settings changing start nothing, and
   * neither does anything once a stop or clean of the service was asked for since the failure.
   */
  private retryFailedRestarts(): void {
    this.forgetStoppedFailures();
    const options = this.emulator.options;
    const due = [...this.failedRestarts].filter(([k, failed]) => failureFixed(k, failed.setting, failed.startedWith, options)
      && this.emulator.status(k).status === 'closed' && this.emulator.settingErrors(k).length === 0).map(([k]) => k);
    if (due.length === 0) return;
    for (const k of due) this.failedRestarts.delete(k);
    this.restarts = this.restarts.then(async () => {
      await withDelayedProgress(`${due.map(serviceName).join(', ')} start for the settings change once the Reset, Import or Export under way is done`, false, this.dataIdle);
      if (this.emulator.shuttingDown) return;
      // Still stopped, and not started or given up meanwhile (a start by hand runs on its own).
      const still = due.filter((k) => this.emulator.status(k).status === 'closed');
      if (still.length === 0 || !(await this.deps.prepareStart())) return;
      await this.dataIdle();
      const startedWith = this.emulator.options;
      const outcomes = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Starting Azurite ${still.map(serviceName).join(', ')}` },
        () => Promise.all(still.map((k) => this.emulator.start(k))),
      );
      outcomes.forEach((o, i) => this.afterRestart(still[i]!, o, startedWith));
    }).catch((err: unknown) => void notify('error', `Azurite: a start for a settings change failed: ${(err as Error).message}`));
  }

  /**
   * Queues a restart of `kinds`. When its turn comes, only those that still need one restart: two
   * changes in a row queue two restarts, and the first one applies both.
   * @param answered the in-memory services the user answered Restart Now for ({@link restartQueued}):
   *   no longer queued once the restart has run; asked about again at the next change when it did
   *   not run (the folder question dismissed)
   */
  private queueRestart(kinds: ServiceKind[], answered: readonly ServiceKind[] = []): void {
    this.restarts = this.restarts.then(async () => {
      let ran = false;
      try {
        ran = await this.restartNow(kinds);
      } finally {
        for (const k of answered) this.restartQueued.delete(k);
        // Not restarted (the folder question dismissed): the next change asks about them again.
        if (!ran) for (const k of answered) this.asked.delete(k);
      }
      // One link that fails (the folder question's state not written, say) must not leave the chain
      // rejected, which would skip every later restart without a word.
    }).catch((err: unknown) => void notify('error', `Azurite: a restart for a settings change failed: ${(err as Error).message}`));
  }

  /**
   * The queued restart of `kinds` once its turn has come (see {@link queueRestart}).
   * @returns false when the folder question that a start asks first was dismissed (nothing restarted)
   */
  private async restartNow(kinds: ServiceKind[]): Promise<boolean> {
    // Over a second of waiting says what it waits for.
    await withDelayedProgress(`${kinds.map(serviceName).join(', ')} restart for the settings change once the Reset, Import or Export under way is done`, false, this.dataIdle);
    if (this.emulator.shuttingDown || !this.emulator.servicesNeedingRestart().some((k) => kinds.includes(k))) return true;
    // A restart is a start: first ask what a start asks (which folder of a multi-root workspace
    // keeps disk data, when none is chosen or it has left the workspace), with the settings read
    // again. Dismissed: the services go on as they are, and the next change asks again.
    if (!(await this.deps.prepareStart())) return false;
    // A Reset, Import or Export may have begun meanwhile. Once no data operation runs, the
    // restarts are queued in the same turn: one that begins later waits for them.
    await this.dataIdle();
    const due = this.emulator.servicesNeedingRestart().filter((k) => kinds.includes(k));
    if (due.length === 0) return true;
    const startedWith = this.emulator.options;
    const restarting = Promise.all(due.map((k) => this.emulator.restart(k)));
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Restarting Azurite ${due.map(serviceName).join(', ')}` },
      async () => {
        const outcomes = await restarting;
        outcomes.forEach((o, i) => this.afterRestart(due[i]!, o, startedWith));
      },
    );
    return true;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.quiet.end();
    this.limitQuiet.end();
  }
}

/**
 * Runs an action once `ms` have passed since it was last armed (each {@link arm} starts the wait
 * again); {@link done} resolves when the wait ends, the same promise however often it was re-armed.
 */
class QuietWait {
  private wait: { readonly timer: NodeJS.Timeout; readonly run: () => void; readonly done: Promise<void>; readonly resolve: () => void } | undefined;

  /** @param ms how long nothing must arm it again (ms) */
  constructor(private readonly ms: number) {}

  /** True while a wait runs. */
  get waiting(): boolean {
    return this.wait !== undefined;
  }

  /** Resolves when the wait under way has ended (its action run, if any); at once when none runs. */
  get done(): Promise<void> {
    return this.wait?.done ?? Promise.resolve();
  }

  /** Starts the wait, or starts it again; `run` (instead of an earlier one) runs at its end. */
  arm(run: () => void): void {
    const waiting = this.wait;
    if (waiting !== undefined) clearTimeout(waiting.timer);
    let resolve!: () => void;
    const done = waiting?.done ?? new Promise<void>((r) => { resolve = r; });
    const settle = waiting?.resolve ?? resolve;
    const timer = setTimeout(() => {
      this.wait = undefined;
      try {
        run();
      } finally {
        settle();
      }
    }, this.ms);
    this.wait = { timer, run, done, resolve: settle };
  }

  /** Ends the wait under way with its action, now. */
  flush(): void {
    const waiting = this.wait;
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    this.wait = undefined;
    try {
      waiting.run();
    } finally {
      waiting.resolve();
    }
  }

  /** Ends the wait under way without its action (those awaiting {@link done} go on). */
  end(): void {
    const waiting = this.wait;
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    this.wait = undefined;
    waiting.resolve();
  }
}
