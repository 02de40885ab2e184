// Bundles the extension into dist/extension.js (cjs, node, vscode external).
// `--production` minifies; `--watch` rebuilds on change.
// applicationinsights is aliased to a stub: azurite's Telemetry.js always requires it, but
// in-process telemetry never starts (see ../shared/notes/azurite-engine.md, "Bundling").
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const options = {
  entryPoints: [path.join(root, 'src/extension.ts')],
  outfile: path.join(root, 'dist/extension.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  alias: { applicationinsights: path.join(root, 'src/emulator/stubs/applicationinsights.js') },
  minify: production,
  sourcemap: !production,
  metafile: true,
  logLevel: 'warning',
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('[esbuild] watching');
} else {
  const result = await esbuild.build(options);
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  console.log(`[esbuild] dist/extension.js ${(bytes / 1024 / 1024).toFixed(2)} MiB${production ? ' (minified)' : ''}`);
}
