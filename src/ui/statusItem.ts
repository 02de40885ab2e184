/**
 * A status bar item drawn from a {@link StatusView} (one class for the three service items and the
 * memory meter; VS Code git's `statusbar.ts` pattern: hold state, render through a pure function).
 */
import * as vscode from 'vscode';
import type { StatusView } from '../core/statusView';

/** What a test can read back from an item (the VS Code API has no getter for other extensions). */
export interface StatusItemSnapshot {
  readonly id: string;
  readonly text: string;
  readonly tooltip: string;
  readonly accessibilityLabel: string;
  readonly command: string | undefined;
  readonly backgroundColor: string | undefined;
  readonly visible: boolean;
}

const BACKGROUNDS = {
  normal: undefined,
  warning: 'statusBarItem.warningBackground',
  error: 'statusBarItem.errorBackground',
} as const;

/** One status bar item. `id` is the item id (DOM id in the workbench: `<publisher>.<name>.<id>`). */
export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private view: StatusView | undefined;
  private visible = false;

  /**
   * @param id item id, e.g. `azurite.blob`
   * @param name shown in the status bar's context menu, e.g. "Azurite Blob"
   * @param priority higher is further left
   */
  constructor(readonly id: string, name: string, priority: number) {
    this.item = vscode.window.createStatusBarItem(id, vscode.StatusBarAlignment.Left, priority);
    this.item.name = name;
  }

  /** Re-renders from `view` and shows the item (or hides it when `visible` is false). */
  render(view: StatusView, visible = true): void {
    this.view = view;
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: [...view.linkCommands] };
    this.item.tooltip = tooltip;
    this.item.command = view.command;
    this.item.accessibilityInformation = { label: view.accessibilityLabel, ...(view.command !== undefined ? { role: 'button' } : {}) };
    const bg = BACKGROUNDS[view.severity];
    this.item.backgroundColor = bg === undefined ? undefined : new vscode.ThemeColor(bg);
    this.visible = visible;
    if (visible) this.item.show();
    else this.item.hide();
  }

  /** What the item shows now. */
  snapshot(): StatusItemSnapshot {
    return {
      id: this.id,
      text: this.view?.text ?? '',
      tooltip: this.view?.tooltip ?? '',
      accessibilityLabel: this.view?.accessibilityLabel ?? '',
      command: this.view?.command,
      backgroundColor: this.view === undefined ? undefined : BACKGROUNDS[this.view.severity],
      visible: this.visible,
    };
  }

  dispose(): void {
    this.item.dispose();
  }
}
