/**
 * Debug configurations as VS Code hands them to `resolveDebugConfiguration`, and the variables
 * added to them. Pure; no vscode.
 */
import { identityConnectionKey, readsAnyCase } from './localSettings';

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

/** The Azure Functions extension's command variable that starts the `func: host start` task itself, then picks its process (its .NET launch template's `processId`). */
export const PICK_FUNC_PROCESS = '${command:azureFunctions.pickProcess}';

/**
 * True when a launch starts a task before its debug session exists: it names a `preLaunchTask` (a
 * label, or a task identifier object), or
 * a string anywhere in it (at any depth: `processId`, `args`, `env` …) holds {@link PICK_FUNC_PROCESS},
 * which VS Code runs while it substitutes the variables, after `resolveDebugConfiguration` and
 * before any session. The Azure Functions extension's .NET template
 * (`{ "type": "coreclr", "request": "attach", "processId": "${command:azureFunctions.pickProcess}" }`)
 * names no preLaunchTask, but its `func: host start` starts all the same.
 * @param config the configuration as `resolveDebugConfiguration` receives it (variables not substituted yet)
 */
export function startsTaskBeforeSession(config: Readonly<Record<string, unknown>>): boolean {
  if (typeof config.preLaunchTask === 'string' && config.preLaunchTask !== '') return true;
  // A task identifier (`{ "type": "func", "command": "host start" }`), which VS Code accepts too.
  if (typeof config.preLaunchTask === 'object' && config.preLaunchTask !== null) return true;
  const seen = new Set<object>();
  const holds = (value: unknown): boolean => {
    if (typeof value === 'string') return value.includes(PICK_FUNC_PROCESS);
    if (typeof value !== 'object' || value === null || seen.has(value)) return false;
    seen.add(value);
    return Object.values(value).some(holds);
  };
  return holds(config);
}

/**
 * True when `names` has `name` as the platform compares variable names: on Windows without regard
 * to case (its environment has one `Path`, whatever the case written), elsewhere exactly, except
 * for a variable its reader takes in any case (`AzureWebJobsStorage`: ./localSettings.ts
 * readsAnyCase).
 * @param platform `process.platform` by default
 */
export function hasVariableName(names: Iterable<string>, name: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'win32' && !readsAnyCase(name)) {
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
 * the platform does ({@link hasVariableName}: `AZUREWEBJOBSSTORAGE` is `AzureWebJobsStorage` on Windows,
 * and everywhere for that variable, which the Functions host reads in any case).
 *
 * An `env` value equal to the one VS Code's own environment holds (`inherited`) is not the
 * configuration's: a debugger copied it there before this pass. The Python debugger does, for
 * `"console": "internalConsole"` (it merges the whole environment into `env` in its own resolve
 * step, which runs first). Such a value is replaced; `variables` holds a name only when the
 * inherited value may be replaced (./localSettings.ts `decideVariables`).
 * @param config the resolved configuration (`vscode.DebugConfiguration`; changed in place and returned)
 * @param variables name → value to add
 * @param ownKeys names the configuration sets itself outside `env` (its envFile); they are not added
 * @param inherited the extension host's environment (`process.env`); none by default
 * @returns the names added (replacements included)
 */
export function addEnvironment(
  config: Record<string, unknown>, variables: Partial<Record<string, string>>, ownKeys: ReadonlySet<string> = new Set(), platform: NodeJS.Platform = process.platform,
  inherited: Readonly<Record<string, string | undefined>> = {},
): string[] {
  const env: Record<string, unknown> = typeof config.env === 'object' && config.env !== null ? config.env as Record<string, unknown> : {};
  const added: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    // An identity-based connection the configuration sets (`AzureWebJobsStorage__accountName`) is its own too.
    if (value === undefined || hasVariableName(ownKeys, name, platform) || identityConnectionKey([...ownKeys, ...Object.keys(env).filter((k) => typeof env[k] === 'string')], name) !== undefined) continue;
    const present = Object.keys(env).find((k) => hasVariableName([k], name, platform));
    if (present !== undefined) {
      const copied = typeof env[present] === 'string' && env[present] === (inherited[present] ?? inherited[name]);
      if (!copied) continue;
      delete env[present];
    }
    env[name] = value;
    added.push(name);
  }
  if (added.length > 0) config.env = env;
  return added;
}
