/**
 * The extension's entry point: package.json `main`, bundled as dist/extension.js. It loads the
 * composition root (src/extension.ts, bundled as dist/main.js) through a V8 code cache in the
 * extension's global storage (src/emulator/codeCache.ts) and hands activation to it.
 *
 * Why: VS Code counts loading the extension's module and the `activate()` call as its activation, on
 * the extension host's thread that every extension shares. Without a cache, each window compiles
 * dist/main.js and every function `activate()` runs; with one, V8 takes them compiled. The cache is
 * written once per build and VS Code version, once the warm-up after activation has settled
 * (src/extension.ts), so the first window of a build compiles and every later one uses the cache.
 * This file stays small and never loads `vscode` itself (esbuild.mjs fails the build if it does):
 * the composition root does.
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { CODE_CACHE_FOLDER, CodeCachedModule } from './emulator/codeCache';
import type * as Main from './extension';

let main: typeof Main | undefined;

/**
 * Loads dist/main.js through the code cache in `<global storage>/code-cache` and calls its
 * `activate()`, passing how long the load took and the cache (its lines and its save). Throws what
 * loading or activating throws, as VS Code's own `require` of the module would.
 */
export function activate(context: vscode.ExtensionContext): ReturnType<typeof Main.activate> {
  const startedAt = performance.now();
  const pending: string[] = [];
  let write = (line: string): void => void pending.push(line);
  const code = new CodeCachedModule<typeof Main>(
    path.join(__dirname, 'main.js'),
    path.join(context.globalStorageUri.fsPath, CODE_CACHE_FOLDER),
    { info: (line) => write(line) },
    'Extension code cache',
  );
  main = code.load();
  return main.activate(context, {
    loadMs: performance.now() - startedAt,
    logTo: (sink) => {
      for (const line of pending.splice(0)) sink(line);
      write = sink;
    },
    save: () => code.save(),
  });
}

/** The composition root's `deactivate()`: stops every service (ports freed, data saved). */
export function deactivate(): ReturnType<typeof Main.deactivate> {
  return main?.deactivate();
}
