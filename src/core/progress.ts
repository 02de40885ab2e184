/**
 * Progress arithmetic for VS Code's progress notifications. No vscode.
 */

/**
 * The share of the bar (percent) to add for a step of `done` out of `total`, given the share
 * `reported` so far. VS Code's `Progress.report` takes increments, which add up and cannot be taken
 * back. So the bar follows done ÷ total from below: it never goes back, waits while a total that
 * grew catches up, and stops at 100; a total that is still being counted gives no increment.
 * @param reported percent reported so far (0–100)
 * @param done steps done
 * @param total steps known so far (0: no counts, no bar)
 * @param totalGrows true when `total` counts only what was found so far (an export): no share of the
 *   whole is known, and VS Code shows its running bar instead
 * @returns the increment in percent (≥ 0), or undefined when there is no total to measure against
 */
export function progressIncrement(reported: number, done: number, total: number, totalGrows = false): number | undefined {
  if (total <= 0 || totalGrows) return undefined;
  return Math.max(0, Math.min(100, (done / total) * 100) - reported);
}
