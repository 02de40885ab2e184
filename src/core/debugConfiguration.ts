/**
 * Debug configurations as VS Code hands them to `resolveDebugConfiguration`, and the variables
 * added to them. Pure; no vscode.
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

/**
 * True when `names` has `name` as the platform compares variable names: on Windows without regard
 * to case (its environment has one `Path`, whatever the case written), elsewhere exactly.
 * @param platform `process.platform` by default
 */
export function hasVariableName(names: Iterable<string>, name: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'win32') {
    for (const n of names) if (n === name) return true;
    return false;
  }
  const wanted = name.toUpperCase();
  for (const n of names) if (n.toUpperCase() === wanted) return true;
  return false;
}

/**
 * Adds the connection variables to a launch configuration's `env`, leaving every variable the
 * configuration sets itself (in `env`, or in its envFile: `ownKeys`) as it is, names compared as
 * the platform does ({@link hasVariableName}: `AZUREWEBJOBSSTORAGE` is `AzureWebJobsStorage` on Windows).
 * @param config the resolved configuration (`vscode.DebugConfiguration`; changed in place and returned)
 * @param variables name → value to add
 * @param ownKeys names the configuration sets itself outside `env` (its envFile); they are not added
 * @returns the names added
 */
export function addEnvironment(
  config: Record<string, unknown>, variables: Partial<Record<string, string>>, ownKeys: ReadonlySet<string> = new Set(), platform: NodeJS.Platform = process.platform,
): string[] {
  const env: Record<string, unknown> = typeof config.env === 'object' && config.env !== null ? config.env as Record<string, unknown> : {};
  const added: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined || hasVariableName(Object.keys(env), name, platform) || hasVariableName(ownKeys, name, platform)) continue;
    env[name] = value;
    added.push(name);
  }
  if (added.length > 0) config.env = env;
  return added;
}
