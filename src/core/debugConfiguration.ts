/**
 * Debug configurations as VS Code hands them to `resolveDebugConfiguration`. Pure; no vscode.
 */

/**
 * True for the configuration VS Code passes when the user starts debugging with no launch.json:
 * no keys but `noDebug` (Run Without Debugging). The debugger's own provider then makes one for the
 * open file, and some recognise the case only by the object having no other keys (vscode-java-debug,
 * the Python debugger), so a provider running before them must hand it on as it is.
 * @param config the configuration as received (`vscode.DebugConfiguration`)
 */
export function isEmptyDebugConfiguration(config: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(config).every((k) => k === 'noDebug' || config[k] === undefined);
}
