/**
 * Text for a VS Code notification. Pure; no vscode.
 */

/**
 * `message` with every Markdown link made plain text. A non-modal notification (a progress
 * notification's title and message too) turns `[label](command:…)`, `(https://…)` or `(file:…)`
 * into a link that runs or opens it when clicked (VS Code's notification renderer parses them), and
 * messages here carry names other people chose: a blob's name in a shared or attached Azurite, an
 * entity's key, a server's error text. A space between `]` and `(` is enough: the renderer's link
 * pattern wants them side by side. Only where a link target follows, so that `photo[1](2).jpg`
 * stays as it is named. No message of ours is meant to hold a link.
 */
export function plainNotificationText(message: string): string {
  return message.replace(/\]\((?=https?:\/\/|command:|file:)/gi, '] (');
}
