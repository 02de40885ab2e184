/**
 * The environment variables that tasks written in tasks.json set themselves, and terminal profiles
 * and JavaScript Debug Terminal launches (profileVariables, launchVariables). Pure; no vscode.
 *
 * VS Code applies an extension's environment variable collection to a task's terminal too, after
 * the task's own `options.env` (measured in code-server 4.139.1: a `process` task that set
 * `AZURE_STORAGE_CONNECTION_STRING` itself saw ours). So a variable a task sets is left out of the
 * collection, as one `terminal.integrated.env` sets is (ui/terminalEnvironment.ts).
 *
 * What counts, from the tasks.json schema (VS Code's "Schema for tasks.json" reference): the file's
 * root `options.env`, which every task of the file gets, and each task's own `options.env`, each
 * also under the platform's key (`linux`, `osx`, `windows`: `{ "options": { "env": … } }`), which
 * VS Code merges over the general one. A task of any type counts (`shell`, `process`, or one an
 * extension provides, such as `npm`, customized in the file): all of them take `options`.
 */
import { hasVariableName } from './debugConfiguration';
import { identityConnectionKey } from './localSettings';

/** A platform's key in tasks.json and under `terminal.integrated.env`. */
export type TaskPlatform = 'windows' | 'osx' | 'linux';

/** One tasks.json's content (the `tasks` configuration section at one level), and what to call it. */
export interface TasksSource {
  /** The section's value as VS Code's configuration holds it (`{ version, options, tasks, linux, … }`); anything else is ignored. */
  readonly value: unknown;
  /** What a description calls the file: `tasks.json`, `the user tasks.json`, `tasks.json of api`, … */
  readonly name: string;
}

/** A variable left to the tasks that set it. */
export interface TaskVariable {
  /** The variable, as `names` gave it. */
  readonly name: string;
  /** Who sets it: `the task "copy" (tasks.json)`, or `every task of tasks.json` (the root options). */
  readonly by: string;
  /** " (AzureWebJobsStorage__accountName: an identity-based connection)" when the task sets that form, else ''. */
  readonly note: string;
}

/**
 * Which of `names` some task of `sources` sets in its environment on `platform`: the first task
 * (or file root) found for each. A name counts when set to any value, compared as the platform
 * compares variable names; `AzureWebJobsStorage` also when an identity-based form of it
 * (`AzureWebJobsStorage__accountName`, …) is set to a string.
 * @param names the variables to look for (`AZURE_STORAGE_CONNECTION_STRING`, `AzureWebJobsStorage`)
 */
export function taskVariables(sources: readonly TasksSource[], names: readonly string[], platform: TaskPlatform): TaskVariable[] {
  const found = new Map<string, TaskVariable>();
  const look = (env: Record<string, unknown>, by: string): void => {
    for (const v of variablesSet(env, names.filter((n) => !found.has(n)), platform)) found.set(v.name, { ...v, by });
  };
  for (const source of sources) {
    if (!isRecord(source.value)) continue;
    const tasks = Array.isArray(source.value.tasks) ? source.value.tasks.filter(isRecord) : [];
    if (tasks.length > 0) look(envOf(source.value, platform), `every task of ${source.name}`);
    for (const task of tasks) look(envOf(task, platform), `the task "${taskLabel(task)}" (${source.name})`);
  }
  return [...found.values()];
}

/**
 * Which of `names` a terminal profile sets in its `env` (`terminal.integrated.profiles.<platform>`:
 * profile name → `{ path, args, env, … }`, or null to hide a built-in one). VS Code merges a
 * profile's `env` into its terminals' launch and applies an extension's collection after it, as for
 * a task (read in VS Code 1.139's terminal code), so such a variable is left to the profile.
 * @param profiles the setting's value for the platform
 * @param setting what a description calls the setting (`terminal.integrated.profiles.linux`)
 */
export function profileVariables(profiles: unknown, names: readonly string[], platform: TaskPlatform, setting: string): TaskVariable[] {
  const found = new Map<string, TaskVariable>();
  if (!isRecord(profiles)) return [];
  for (const [profile, value] of Object.entries(profiles)) {
    if (!isRecord(value) || !isRecord(value.env)) continue;
    for (const v of variablesSet(value.env, names.filter((n) => !found.has(n)), platform)) found.set(v.name, { ...v, by: `the terminal profile "${profile}" (${setting})` });
  }
  return [...found.values()];
}

/**
 * Which of `names` a JavaScript Debug Terminal launch sets in its `env`: a launch configuration of
 * type `node-terminal` (its command runs in a terminal that js-debug creates with that `env`, and
 * VS Code applies an extension's collection over it, as for a task). Other launches are not
 * terminals of ours: their `env` reaches their process directly (ui/debugEnvironment.ts keeps it).
 * @param sources the `launch` configuration section at each level (`{ configurations: [...] }`), each with what to call it
 */
export function launchVariables(sources: readonly TasksSource[], names: readonly string[], platform: TaskPlatform): TaskVariable[] {
  const found = new Map<string, TaskVariable>();
  for (const source of sources) {
    if (!isRecord(source.value) || !Array.isArray(source.value.configurations)) continue;
    for (const config of source.value.configurations.filter(isRecord)) {
      if (config.type !== 'node-terminal' || !isRecord(config.env)) continue;
      const name = typeof config.name === 'string' ? config.name : 'node-terminal';
      for (const v of variablesSet(config.env, names.filter((n) => !found.has(n)), platform)) found.set(v.name, { ...v, by: `the launch configuration "${name}" (${source.name})` });
    }
  }
  return [...found.values()];
}

/**
 * Which of `names` an environment written by the user (`terminal.integrated.env.<platform>`, a
 * task's `options.env`) sets: named with any value (a string, "" or null, which removes it),
 * compared as `platform` compares variable names, or, for `AzureWebJobsStorage`, an identity-based
 * form of it (`AzureWebJobsStorage__accountName`, …) set to a string. `note` says which form:
 * " (AzureWebJobsStorage__accountName: an identity-based connection)", else ''.
 * @param env variable name → value, as written
 */
export function variablesSet(env: Readonly<Record<string, unknown>>, names: readonly string[], platform: TaskPlatform): { readonly name: string; readonly note: string }[] {
  const keys = Object.keys(env);
  const identityKeys = keys.filter((k) => typeof env[k] === 'string');
  const found: { name: string; note: string }[] = [];
  for (const name of names) {
    const named = hasVariableName(keys, name, platform === 'windows' ? 'win32' : 'linux');
    const key = named ? undefined : identityConnectionKey(identityKeys, name);
    if (named || key !== undefined) found.push({ name, note: key === undefined ? '' : ` (${key}: an identity-based connection)` });
  }
  return found;
}

/** The names `options.env` and `<platform>.options.env` of `o` (a task or a file's root) set, merged. */
function envOf(o: Record<string, unknown>, platform: TaskPlatform): Record<string, unknown> {
  const env = (x: unknown): Record<string, unknown> => {
    const options = isRecord(x) ? x.options : undefined;
    return isRecord(options) && isRecord(options.env) ? options.env : {};
  };
  return { ...env(o), ...env(o[platform]) };
}

/** A task's name as VS Code shows it: its `label`, the older `taskName`, else its type (and npm's script). */
function taskLabel(task: Record<string, unknown>): string {
  for (const key of ['label', 'taskName']) if (typeof task[key] === 'string' && task[key] !== '') return task[key];
  const type = typeof task.type === 'string' ? task.type : 'task';
  return typeof task.script === 'string' ? `${type}: ${task.script}` : type;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
