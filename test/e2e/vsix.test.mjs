// The packaged .vsix (built by `npm run package`) installs with code-server's
// `--install-extension`, the same CLI as `code --install-extension`, and holds only what runs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { locateTools, makeTempDir, repoRoot } from '../harness/codeServer.mjs';

const vsix = path.join(repoRoot, 'dist', 'storage-emulators.vsix');

test('the .vsix installs with --install-extension and contains the bundle, not node_modules', async () => {
  assert.ok(fs.existsSync(vsix), `${vsix} is missing: run npm run package first`);
  const tools = await locateTools();
  const temp = makeTempDir('vsix-install-');
  try {
    const extensionsDir = path.join(temp.dir, 'extensions');
    const home = path.join(temp.dir, 'home');
    const out = execFileSync(tools.node24, [tools.codeServerEntry, '--extensions-dir', extensionsDir, '--user-data-dir', path.join(temp.dir, 'user-data'), '--install-extension', vsix], {
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local/share'), XDG_CACHE_HOME: path.join(home, '.cache'), EXTENSIONS_GALLERY: '{}' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.match(out, /was successfully installed/);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const installed = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
    for (const file of ['extension.js', 'engine.js']) assert.ok(fs.existsSync(path.join(installed, 'dist', file)), `no dist/${file} in ${installed}`);
    assert.ok(!fs.existsSync(path.join(installed, 'node_modules')), 'node_modules must not be packaged');
    const sizeMiB = fs.statSync(vsix).size / 1024 / 1024;
    console.log(`vsix: ${sizeMiB.toFixed(2)} MiB`);
  } finally {
    temp.remove();
  }
});
