// Bundles the extension into dist/extension.js (the entry point) and dist/main.js (the rest, which
// the entry point loads through a V8 code cache), and the engine it loads on first start into
// dist/engine.js (cjs, node, vscode external); the engine's process, its checksum thread and the
// data layer into bundles of their own (docs/ARCHITECTURE.md, "The bundles and their guards").
// `--production` minifies; `--watch` rebuilds on change.
// `--engine-bundle` instead writes out/engine-bundle.js: src/emulator (Emulator, createService …)
// with the same aliases and plugins, not minified, for the unit tests and the benchmark (bench/).
// `--report` prints the 10 largest inputs of the bundle (npm run bundle:report).
// applicationinsights is aliased to a stub: azurite's Telemetry.js always requires it, but
// in-process telemetry never starts (docs/ENGINE.md, "Loading it").
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const engineBundle = process.argv.includes('--engine-bundle');
const report = process.argv.includes('--report');
// For measuring the seam's effect only: `--skip-patch=crc64,uriTemplates` leaves those patches out,
// `--outfile=PATH` writes the engine bundle elsewhere (see bench/README.md).
const argValue = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const skippedPatches = new Set((argValue('skip-patch') ?? '').split(',').filter(Boolean));

/**
 * The engine seam: a few lines appended, at bundle time only, to named files of azurite
 * 3.37 (and of LokiJS, which it bundles), each handing one of its hot spots to our own code in
 * src/engine. node_modules stays as installed and no azurite source is kept in this repository.
 * Each patch names the package version it was verified against and text the file must contain:
 * another installed version (whose replaced functions may have changed although the text is still
 * there), or a file without that text, fails the build instead of silently losing or breaking the
 * patch. The build also fails if azurite is bundled without every patch applied.
 * - crc64: common/utils/utils.js computes CRC-64/NVME (stageBlock without Content-MD5, Append
 *   Block, Put Page) one byte per step, which bounds large uploads. Its three CRC64 exports
 *   (getCRC64FromString, getCRC64FromStream, computeTransactionalChecksums) are replaced by the
 *   slice-by-16 versions in src/engine/azuriteChecksums.ts (same bytes, many times faster: npm run bench). Callers read
 *   them from the exports object at call time (`(0, utils_1.computeTransactionalChecksums)(…)`), so
 *   overwriting the exports reaches every caller.
 * - uriTemplates: blob|queue|table/generated/utils/utils.js parse the URI template of every
 *   operation again for every request to dispatch it (72 for blob); src/engine/uriTemplateCache.ts
 *   parses each template text once and remembers each (url, template) answer of azurite's own
 *   isURITemplateMatch (same answers; small requests faster: bench/ab.mjs measures it).
 * - apiVersions: each service's storage-context middleware (blob/middlewares/blobStorageContext,
 *   queue/middlewares/queueStorageContext, table/middleware/tableStorageContext) refuses an
 *   `x-ms-version` missing from its ValidAPIVersions with HTTP 400 unless `skipApiVersionCheck`.
 *   Its default export, the middleware factory, is wrapped by src/engine/apiVersionPolicy.ts so that
 *   `azurite.apiVersionCheck` (acceptNewer, strict, off) decides per request and applies live.
 * - extentProtection: common/persistence/LokiExtentMetadataStore.js inserts a new extent's record
 *   without the `LastModifyInMS` its GC query reads, so azurite's 10-minute protection of new
 *   extents never applied; src/engine/extentProtection.ts sets it on insert.
 * - lokiBatches: lokijs/src/lokijs.js (LokiJS 1.5, azurite's metadata store; `package` names it,
 *   as azurite resolves it) sorts every binary index again after a batch remove (of any size, none
 *   included) or update, and azurite removes extents and blobs one at a time, and a queue's expired
 *   messages (nearly always none) before most message operations, through those batch paths
 *   (freeing n extents sorted the extent index n times); src/engine/lokiBatches.ts skips a
 *   remove of none and sends a remove or an update of one through LokiJS's single-document path,
 *   which keeps indices in place.
 * - batchLineSeparators: table/batch/TableBatchSerialization.js finds each operation's JSON in a
 *   table transaction with a pattern whose `.` stops at U+2028/U+2029, which JSON sends raw, so such
 *   a transaction failed with 500; src/engine/tableBatchText.ts escapes them before azurite reads it.
 * Verified by test/unit/engine/*.test.ts: crc64 (bit-identical to azurite's function, 0 B–8 MiB,
 * whole and chunked), uriTemplateCache (same dispatch results), extentProtection (azurite's own
 * store and GC iterator spare a new extent), lokiBatches (the same documents and answers as LokiJS
 * without it), tableBatchText (azurite's serializer with and without it; SDK transactions through
 * the engine) and bundledEngine (real SDK uploads through out/engine-bundle.js, which is built
 * with this plugin).
 */
const engineSeam = path.join(root, 'src/engine');
/** azurite's entry and its package folder, real paths (an `npm link`ed azurite included). */
const azuriteEntry = fs.realpathSync(createRequire(import.meta.url).resolve('azurite/dist/src/azurite.js'));
const azuritePackage = path.dirname(path.dirname(path.dirname(azuriteEntry)));
/**
 * True for a bundle input (a path esbuild's metafile gives, relative to the working folder) inside
 * the azurite package. Without regard to case on Windows, where a drive letter's case may differ.
 */
const isAzuriteInput = (input) => {
  const [inside, pkg] = [path.resolve(input), azuritePackage + path.sep].map((p) => (process.platform === 'win32' ? p.toLowerCase() : p));
  return inside.startsWith(pkg);
};
const azuritePatches = [
  {
    name: 'crc64',
    verified: '3.37.0',
    files: ['common/utils/utils.js'],
    expect: ['class CRC64Hash', 'exports.getCRC64FromString = getCRC64FromString;',
      'exports.getCRC64FromStream = getCRC64FromStream;', 'exports.computeTransactionalChecksums = computeTransactionalChecksums;'],
    footer: [
      `const __storageEmulatorsChecksums = require(${JSON.stringify(path.join(engineSeam, 'azuriteChecksums.ts'))});`,
      ...['getCRC64FromString', 'getCRC64FromStream', 'computeTransactionalChecksums']
        .map((name) => `exports.${name} = __storageEmulatorsChecksums.${name};`),
    ],
  },
  {
    name: 'uriTemplates',
    verified: '3.37.0',
    files: ['blob', 'queue', 'table'].map((service) => `${service}/generated/utils/utils.js`),
    expect: ['const uri_templates_1 = tslib_1.__importDefault(require("uri-templates"));', '(0, uri_templates_1.default)(template)',
      'exports.isURITemplateMatch = isURITemplateMatch;'],
    footer: [
      `const __storageEmulatorsDispatch = require(${JSON.stringify(path.join(engineSeam, 'uriTemplateCache.ts'))});`,
      'uri_templates_1.default = __storageEmulatorsDispatch.memoizeUriTemplate(uri_templates_1.default);',
      'exports.isURITemplateMatch = __storageEmulatorsDispatch.memoizeTemplateMatch(exports.isURITemplateMatch);',
    ],
  },
  {
    name: 'apiVersions',
    verified: '3.37.0',
    files: ['blob/middlewares/blobStorageContext.middleware.js', 'queue/middlewares/queueStorageContext.middleware.js',
      'table/middleware/tableStorageContext.middleware.js'],
    expect: ['exports.default = create', 'if (!skipApiVersionCheck) {', 'constants_3.ValidAPIVersions', 'const constants_3 = require("../utils/constants");'],
    footer: [
      `const __storageEmulatorsApiVersions = require(${JSON.stringify(path.join(engineSeam, 'apiVersionPolicy.ts'))});`,
      'exports.default = __storageEmulatorsApiVersions.withApiVersionPolicy(exports.default, constants_3.ValidAPIVersions);',
    ],
  },
  {
    name: 'extentProtection',
    verified: '3.37.0',
    files: ['common/persistence/LokiExtentMetadataStore.js'],
    expect: ['class LokiExtentMetadata {', 'coll.insert(extent);', 'doc.LastModifyInMS = extent.lastModifiedInMS;',
      'query.LastModifyInMS = {', 'exports.default = LokiExtentMetadata;'],
    footer: [
      `require(${JSON.stringify(path.join(engineSeam, 'extentProtection.ts'))}).protectNewExtents(LokiExtentMetadata.prototype);`,
    ],
  },
  {
    name: 'batchLineSeparators',
    verified: '3.37.0',
    files: ['table/batch/TableBatchSerialization.js'],
    expect: ['class TableBatchSerialization extends', 'deserializeBatchRequest(batchRequestsString) {',
      'const jsonOperationBody = subRequest.match(/{+.+}+/);', 'exports.TableBatchSerialization = TableBatchSerialization;'],
    footer: [
      `require(${JSON.stringify(path.join(engineSeam, 'tableBatchText.ts'))}).readLineSeparators(TableBatchSerialization.prototype);`,
    ],
  },
  {
    name: 'lokiBatches',
    package: 'lokijs',
    verified: '1.5.12',
    files: ['src/lokijs.js'],
    expect: ['module.exports = factory();', 'Loki.Collection = Collection;',
      'Collection.prototype.removeBatchByPositions = function (positions) {', 'this.ensureAllIndexes(true);',
      'Collection.prototype.removeBatch = function (batch) {', 'this.removeBatchByPositions(posx);',
      'Collection.prototype.update = function (doc) {', 'adaptiveBatchOverride = !this.cloneObjects &&',
      'Collection.prototype.remove = function (doc) {', 'this.adaptiveBinaryIndexRemove(position, key);',
      'this.collection.removeBatchByPositions(this.filteredrows);'],
    footer: [
      `require(${JSON.stringify(path.join(engineSeam, 'lokiBatches.ts'))}).keepIndexesOnSmallBatches(module.exports.Collection.prototype);`,
    ],
  },
];

const azuriteSeamPlugin = {
  name: 'azurite-seam',
  setup(build) {
    const patches = azuritePatches.filter((p) => !skippedPatches.has(p.name));
    const azuriteSrc = path.dirname(azuriteEntry);
    // A patch's files are azurite's (dist/src/…), or those of the package it names, as azurite resolves it.
    const packageOf = (patch) => patch.package === undefined ? azuritePackage
      : path.dirname(fs.realpathSync(createRequire(azuriteEntry).resolve(`${patch.package}/package.json`)));
    const baseOf = (patch) => patch.package === undefined ? azuriteSrc : packageOf(patch);
    const fileOf = (patch, f) => path.join(baseOf(patch), f);
    // The version each patch was verified against: its text checks cannot see a changed function body.
    const versionErrors = patches.flatMap((patch) => {
      const installed = JSON.parse(fs.readFileSync(path.join(packageOf(patch), 'package.json'), 'utf8')).version;
      return installed === patch.verified ? [] : [{ text: `azurite-seam ${patch.name}: ${patch.package ?? 'azurite'} ${installed} is installed, the patch was verified against ${patch.verified}; re-verify it in esbuild.mjs (the text it checks and the functions it replaces) and its tests in test/unit/engine, then set its version` }];
    });
    const byFile = new Map();
    for (const patch of patches) for (const f of patch.files) byFile.set(fileOf(patch, f), patch);
    const escape = (p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const applied = new Set();
    build.onStart(() => {
      applied.clear();
      return { errors: versionErrors };
    });
    build.onLoad({ filter: new RegExp(`^(${[...byFile.keys()].map(escape).join('|')})$`) }, async (args) => {
      const patch = byFile.get(args.path);
      const source = await fs.promises.readFile(args.path, 'utf8');
      const missing = patch.expect.filter((text) => !source.includes(text));
      if (missing.length > 0) {
        return { errors: [{ text: `azurite-seam ${patch.name}: ${args.path} changed (no ${missing.join(', ')}); re-verify the patch in esbuild.mjs against this azurite version` }] };
      }
      applied.add(args.path);
      const footer = ['', `// --- storage-emulators engine seam "${patch.name}" (esbuild.mjs) ---`, ...patch.footer, ''].join('\n');
      return { contents: source + footer, loader: 'js', resolveDir: path.dirname(args.path) };
    });
    build.onEnd((result) => {
      const inputs = Object.keys(result.metafile?.inputs ?? {});
      if (result.errors.length > 0 || !inputs.some(isAzuriteInput)) return undefined;
      // Every file of every patch is bundled with azurite (all three services are): one that is not
      // was renamed or moved, and its service would run without the patch.
      // Errors are returned, not pushed onto result.errors: only returned ones fail the build.
      const lost = patches.flatMap((patch) => patch.files.filter((f) => !applied.has(fileOf(patch, f))).map((f) => ({ patch, f })));
      return { errors: lost.map(({ patch, f }) => ({ text: `azurite-seam ${patch.name}: azurite is bundled but ${patch.package ?? 'azurite'}'s ${f} is not; re-verify the patch in esbuild.mjs` })) };
    });
  },
};

/**
 * The engine outside the extension: dist/main.js holds the VS Code layer and the engine host
 * (src/emulator/engineHost.ts); the adapter and azurite are dist/engine.js, which the engine host's
 * process (dist/engineProcess.js) loads, in a process of its own. Activation parses the small bundle, not
 * azurite's. The build fails if azurite ever ends up in main.js, extension.js, data.js or the engine process's entry.
 */
const engineOutside = {
  name: 'engine-outside',
  setup(build) {
    build.onEnd((result) => {
      const leaked = Object.keys(result.metafile?.inputs ?? {}).filter(isAzuriteInput);
      const out = path.relative(root, build.initialOptions.outfile);
      return { errors: leaked.length > 0 ? [{ text: `azurite is bundled into ${out} (${leaked[0]} …): it must load lazily from dist/engine.js` }] : [] };
    });
  },
};

/**
 * One namespace object for the `vscode` module in the extension's bundle. esbuild turns each
 * `import * as vscode from 'vscode'` of an external CommonJS module into its own
 * `__toESM(require("vscode"))`, which copies every property of VS Code's API object (hundreds of
 * getters) once per importing file: about 20 copies while dist/main.js loads, several ms of
 * the activation VS Code reports. Routed through one virtual ES module (`export * from 'vscode'`),
 * the copy is made once and every file imports that module's namespace.
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode-once'
      ? { path: 'vscode', external: true }
      : { path: 'vscode-once', namespace: 'vscode-once' }));
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/** The Azure SDKs stay in dist/data.js: the build fails if one ends up in the extension's bundle. */
const sdksOutside = {
  name: 'sdks-outside',
  setup(build) {
    build.onEnd((result) => {
      const out = path.relative(root, build.initialOptions.outfile);
      if (out.endsWith('data.js')) return undefined;
      const leaked = Object.keys(result.metafile?.inputs ?? {}).filter((p) => p.includes('node_modules/@azure/'));
      return { errors: leaked.length > 0 ? [{ text: `an Azure SDK is bundled into ${out} (${leaked[0]} …): it must load lazily from dist/data.js (src/ui/dataLayer.ts)` }] : [] };
    });
  },
};

/**
 * The newest x-ms-version each service of the installed azurite knows (its ValidAPIVersions), written
 * into both bundles as `__ENGINE_API_VERSIONS__` for the status bar tooltips (src/emulator/engineFacts.ts).
 */
const azuriteRequire = createRequire(import.meta.url);
const engineApiVersions = Object.fromEntries(['blob', 'queue', 'table'].map((kind) => {
  const known = azuriteRequire(`azurite/dist/src/${kind}/utils/constants.js`).ValidAPIVersions;
  return [kind, known.reduce((a, b) => (b > a ? b : a))];
}));

/** @type {import('esbuild').BuildOptions} */
const options = {
  entryPoints: [path.join(root, 'src/extension.ts')],
  outfile: path.join(root, 'dist/extension.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  alias: {
    applicationinsights: path.join(root, 'src/emulator/stubs/applicationinsights.js'),
    // Its `main` is a UMD build whose inner require()s esbuild cannot follow (they would be looked
    // for next to dist/main.js at run time): the ES module build bundles whole.
    'jsonc-parser': path.join(root, 'node_modules/jsonc-parser/lib/esm/main.js'),
  },
  define: { __ENGINE_API_VERSIONS__: JSON.stringify(engineApiVersions) },
  plugins: [azuriteSeamPlugin],
  minify: production,
  sourcemap: !production,
  metafile: true,
  logLevel: 'warning',
};

/**
 * The engine host's process entry (src/emulator/engineProcess.ts): small, without azurite; it loads the
 * engine module it is given (dist/engine.js through the code cache; out/engine-bundle.js in tests).
 */
const processBuild = (outfile) => {
  const base = { ...options };
  delete base.stdin;
  return { ...base, entryPoints: [path.join(root, 'src/emulator/engineProcess.ts')], outfile, plugins: [engineOutside] };
};

if (engineBundle) {
  // The engine alone, as the extension bundles it; `seam`, `azurite*Utils` and `Loki` let tests check the seam.
  delete options.entryPoints;
  Object.assign(options, {
    stdin: {
      contents: [
        "export * from './src/emulator/emulator';",
        "export * from './src/emulator/azurite';",
        "export { parseSettings } from './src/core/settings';",
        "export * as seam from './src/engine/azuriteChecksums';",
        "export { createApiVersionPolicy } from './src/engine/apiVersionPolicy';",
        "export * as azuriteCommonUtils from 'azurite/dist/src/common/utils/utils';",
        "export * as azuriteBlobGeneratedUtils from 'azurite/dist/src/blob/generated/utils/utils';",
        "export * as azuriteQueueGeneratedUtils from 'azurite/dist/src/queue/generated/utils/utils';",
        "export * as azuriteTableGeneratedUtils from 'azurite/dist/src/table/generated/utils/utils';",
        "export { default as Loki } from 'lokijs';",
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'engine-bundle.ts',
      loader: 'ts',
    },
    outfile: path.resolve(root, argValue('outfile') ?? 'out/engine-bundle.js'),
    sourcemap: true,
  });
}

/** Prints the total and the 10 largest inputs (bytes each contributes to the output). */
function printReport(metafile) {
  const mib = (n) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    const inputs = Object.entries(output.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    const fromInputs = inputs.reduce((n, [, i]) => n + i.bytesInOutput, 0);
    console.log(`${file}: ${mib(output.bytes)} (${inputs.length} inputs)`);
    console.log('   bytes in output  share  input');
    for (const [name, i] of inputs.slice(0, 10)) {
      console.log(`${String(i.bytesInOutput).padStart(17)}  ${(100 * i.bytesInOutput / fromInputs).toFixed(1).padStart(4)}%  ${name}`);
    }
    // Grouped by package, as that is what an alias or an external would remove.
    const byPackage = new Map();
    for (const [name, i] of inputs) {
      const m = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name); // the innermost package
      const key = m ? m[1] : '(our code)';
      byPackage.set(key, (byPackage.get(key) ?? 0) + i.bytesInOutput);
    }
    console.log('   by package (top 10):');
    for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
      console.log(`${String(bytes).padStart(17)}  ${(100 * bytes / fromInputs).toFixed(1).padStart(4)}%  ${name}`);
    }
  }
}

/** The checksum thread of the engine's process (src/engine/checksumThread.ts): small, without azurite. */
const checksumBuild = (outfile) => ({ ...processBuild(outfile), entryPoints: [path.join(root, 'src/engine/checksumWorker.ts')] });

// The extension and the engine it loads on the first start; the engine bundle for tests and the
// bench is one file of both.
const builds = engineBundle
  ? [options, { ...processBuild(path.join(root, 'out/engine-process.js')), sourcemap: true }, checksumBuild(path.join(root, 'out/checksum-worker.js'))]
  : [
    // The entry point VS Code loads (package.json `main`): it loads the composition root, dist/main.js,
    // through a V8 code cache (src/entry.ts).
    { ...options, entryPoints: [path.join(root, 'src/entry.ts')], plugins: [engineOutside, sdksOutside] },
    { ...options, entryPoints: [path.join(root, 'src/extension.ts')], outfile: path.join(root, 'dist/main.js'), plugins: [vscodeOnce, engineOutside, sdksOutside] },
    { ...options, entryPoints: [path.join(root, 'src/emulator/azurite.ts')], outfile: path.join(root, 'dist/engine.js') },
    processBuild(path.join(root, 'dist/engineProcess.js')),
    checksumBuild(path.join(root, 'dist/checksumWorker.js')),
    // The data layer and the Azure SDKs (src/data/), loaded on first use by src/ui/dataLayer.ts.
    { ...options, entryPoints: [path.join(root, 'src/data/index.ts')], outfile: path.join(root, 'dist/data.js'), plugins: [engineOutside, sdksOutside] },
  ];

if (watch) {
  // One "[watch] build started" / "[watch] build finished" pair per rebuild of any bundle, with
  // errors in between as "file:line:column: error: text": what .vscode/tasks.json's problem matcher reads.
  let running = 0;
  const announce = {
    name: 'watch-announce',
    setup(build) {
      build.onStart(() => { if (running++ === 0) console.log('[watch] build started'); });
      build.onEnd((result) => {
        for (const e of result.errors) {
          const at = e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : '';
          console.error(`${at}error: ${e.text}`);
        }
        if (--running === 0) console.log('[watch] build finished');
      });
    },
  };
  for (const b of builds) await (await esbuild.context({ ...b, plugins: [...(b.plugins ?? []), announce], logLevel: 'silent' })).watch();
  console.log('[esbuild] watching');
} else {
  for (const b of builds) {
    const result = await esbuild.build(b);
    // dist/engine.js and dist/main.js run through vm.Script (src/emulator/codeCache.ts), which has no
    // loader for import(): a dynamic import in either would fail only when reached.
    const built = fs.readFileSync(b.outfile, 'utf8');
    // Without --production the bundle keeps its dependencies' comments, some of which mention
    // `import('…')` in JSDoc types: the check reads the code with the comments taken out.
    const code = (text) => (production ? text : esbuild.transformSync(text, { minifyWhitespace: true }).code);
    if (/[/\\](engine|main)\.js$/.test(b.outfile) && /\bimport\(/.test(code(built))) {
      throw new Error(`${path.relative(root, b.outfile)} contains import(): src/emulator/codeCache.ts cannot run it; give vm.Script an importModuleDynamically first`);
    }
    // A UMD module whose factory takes `require` (AMD dependencies ["require", "exports", "./x"])
    // requires its own files through that parameter, which esbuild does not follow: they would be
    // looked for next to the bundle at run time, and fail. Alias such a package to its ESM or CJS build.
    if (/define\(\s*\[\s*["']require["']/.test(built)) {
      throw new Error(`${path.relative(root, b.outfile)} contains a UMD module that requires its own files (define(["require", …])): they are not bundled; alias its package to an ESM or CommonJS build`);
    }
    // The entry point stays small and leaves vscode to dist/main.js, which it loads through the code cache.
    if (b.entryPoints?.[0]?.endsWith(`${path.sep}entry.ts`) && built.includes('require("vscode")')) {
      throw new Error(`${path.relative(root, b.outfile)} (src/entry.ts) requires vscode: only dist/main.js may, so that it loads through the code cache`);
    }
    const vscodeRequires = b.plugins?.includes(vscodeOnce) ? built.split('require("vscode")').length - 1 : 0;
    if (vscodeRequires > 1) throw new Error(`${path.relative(root, b.outfile)} requires vscode ${vscodeRequires} times: the vscode-once plugin no longer routes every import through one module`);
    const bytes = Object.entries(result.metafile.outputs).filter(([f]) => !f.endsWith('.map')).reduce((n, [, o]) => n + o.bytes, 0);
    console.log(`[esbuild] ${path.relative(root, b.outfile)} ${(bytes / 1024 / 1024).toFixed(2)} MiB${production ? ' (minified)' : ''}`);
    if (report) printReport(result.metafile);
  }
}
