/**
 * `Azurite: Show Memory Usage`: a webview with the figures and a chart of use against the limit over
 * the last minutes, refreshed live while open and visible (on memory events, at most once a second,
 * and every {@link PANEL_TICK_MS} for the time axis and heap figures). A render asks the engine for
 * its breakdown, whose metadata estimate serializes every LokiJS document on the engine's thread,
 * so a panel in a hidden tab is not rendered: it catches up when it is shown again. One panel;
 * showing it again reveals it. The page is loaded once (and again when its tab is shown, since VS
 * Code drops a hidden webview's page); each later render is a message its script patches in, so
 * a selection and the scroll position stay.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { MemoryHistory } from '../core/memoryHistory';
import { memoryPageBody, memoryPageHtml, type MemoryPageInput } from '../core/memoryPage';
import type { Emulator } from '../emulator/emulator';

/** Refresh interval while the panel is open, in ms. */
export const PANEL_TICK_MS = 2000;

/** Keeps the history (always, from memory and state events) and the panel (while open). */
export class MemoryPanel implements vscode.Disposable {
  private readonly history = new MemoryHistory();
  private panel: vscode.WebviewPanel | undefined;
  private timer: NodeJS.Timeout | undefined;
  private rendering = false;
  private renderAgain = false;
  /** True once the page is loaded in the panel: later renders are posted to it. */
  private loaded = false;
  /** Allows the page's own script (its Content Security Policy names it). */
  private nonce = '';
  /** The page as last rendered (what it shows after the posted update). */
  private lastHtml: string | undefined;
  /** How many renders have set {@link lastHtml} (for tests). */
  private renders = 0;
  private readonly subscriptions: { dispose(): void }[];

  /**
   * @param warningThreshold percent (`azurite.memory.warningThreshold`), read at each render
   * @param attachedTo the label of the Azurite `azurite.attach` names, undefined when not attached; read at each render
   */
  constructor(private readonly emulator: Emulator, private readonly warningThreshold: () => number, private readonly attachedTo: () => string | undefined = () => undefined) {
    this.sample();
    this.subscriptions = [
      emulator.onDidChangeMemory(() => this.sample()),
      emulator.onDidChangeState(() => this.sample()),
    ];
  }

  /** Opens (or reveals) the panel. */
  show(): void {
    if (this.panel !== undefined) {
      this.panel.reveal();
      this.render();
      return;
    }
    // Scripts only for the page's own, which patches renders in (allowed by a nonce, nothing else).
    this.panel = vscode.window.createWebviewPanel('azurite.memoryUsage', 'Azurite Memory Usage', vscode.ViewColumn.Active, { enableScripts: true });
    this.nonce = randomBytes(16).toString('base64');
    this.loaded = false;
    let visible = true;
    this.panel.onDidChangeViewState((e) => {
      // Also fired when the panel becomes active or moves: only a hidden → visible change reloads.
      const wasVisible = visible;
      visible = e.webviewPanel.visible;
      if (!visible || wasVisible) return;
      // VS Code dropped the page while its tab was hidden: load it again, fresh.
      this.loaded = false;
      this.render();
    });
    this.panel.onDidDispose(() => {
      clearInterval(this.timer);
      this.timer = undefined;
      this.panel = undefined;
      this.lastHtml = undefined;
    });
    this.timer = setInterval(() => this.render(), PANEL_TICK_MS);
    this.render();
  }

  /** True while the panel is open. */
  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** The page as last rendered, undefined while the panel is closed (for tests). */
  get html(): string | undefined {
    return this.panel === undefined ? undefined : this.lastHtml;
  }

  /**
   * For tests: whether the panel shows (what a render checks first), whether a render is under way
   * (one that began while it showed sets the page even if its tab was hidden since), and how many
   * renders have set the page.
   */
  get renderState(): { readonly visible: boolean; readonly rendering: boolean; readonly count: number } {
    return { visible: this.panel?.visible === true, rendering: this.rendering, count: this.renders };
  }

  private sample(): void {
    const r = this.emulator.memoryReport();
    this.history.add({ t: Date.now(), usedBytes: r.usedBytes, limitBytes: r.limitBytes });
    this.render();
  }

  /** Redraws from a fresh breakdown (asked of the engine); a render asked for during one follows it. */
  private render(): void {
    if (this.rendering) {
      this.renderAgain = true;
      return;
    }
    this.rendering = true;
    void this.renderNow().finally(() => {
      this.rendering = false;
      if (this.renderAgain) {
        this.renderAgain = false;
        this.render();
      }
    });
  }

  private async renderNow(): Promise<void> {
    if (this.panel?.visible !== true) return;
    const b = await this.emulator.memoryBreakdown();
    if (this.panel === undefined) return;
    const now = Date.now();
    const input: MemoryPageInput = {
      report: b.report,
      // What the running Blob and Queue use (a restart may be pending); the setting when neither runs.
      inMemory: this.emulator.runningKinds().some((k) => k !== 'table') ? this.emulator.isMemoryInUse() : this.emulator.options.inMemoryPersistence,
      metadataEstimateBytes: b.metadataEstimateBytes,
      heapUsedBytes: b.heapUsedBytes,
      rssBytes: b.rssBytes,
      samples: this.history.window(now),
      now,
      warningThreshold: this.warningThreshold(),
      cspSource: this.panel.webview.cspSource,
      attachedTo: this.attachedTo(),
    };
    this.lastHtml = memoryPageHtml(input, this.nonce);
    this.renders++;
    if (this.loaded) {
      void this.panel.webview.postMessage({ type: 'update', body: memoryPageBody(input) });
      return;
    }
    this.panel.webview.html = this.lastHtml;
    this.loaded = true;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    clearInterval(this.timer);
    this.panel?.dispose();
  }
}
