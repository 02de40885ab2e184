/**
 * The drop-in promise, checked against the Azurite extension's own manifest: the `azurite` npm
 * package that the engine is bundled from is also the Azurite VS Code extension, and its
 * package.json contributes the settings and commands that users' settings.json files and other
 * extensions use.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Manifest {
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { type?: string | string[]; default?: unknown }> } | { properties: Record<string, { type?: string | string[]; default?: unknown }> }[];
  };
}

const root = path.join(__dirname, '..', '..', '..');
const read = (file: string): Manifest => JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
const settingsOf = (m: Manifest): Record<string, { type?: string | string[]; default?: unknown }> =>
  Object.assign({}, ...[m.contributes.configuration].flat().map((c) => c.properties)) as Record<string, { type?: string | string[]; default?: unknown }>;

describe('Compatibility with the Azurite extension (its package.json in node_modules/azurite)', () => {
  const official = read(require.resolve('azurite/package.json', { paths: [root] }));
  const ours = read(path.join(root, 'package.json'));

  it('contributes every command id of the Azurite extension', () => {
    const ids = new Set(ours.contributes.commands.map((c) => c.command));
    assert.deepEqual(official.contributes.commands.map((c) => c.command).filter((id) => !ids.has(id)), []);
  });

  it('contributes every azurite.* setting of the Azurite extension, with the same default and a type that accepts its values', () => {
    const mine = settingsOf(ours);
    for (const [key, theirs] of Object.entries(settingsOf(official))) {
      const setting = mine[key];
      assert.ok(setting !== undefined, `${key} is not contributed`);
      assert.deepEqual(setting.default, theirs.default, `${key}: default`);
      const types = [setting.type ?? []].flat();
      // Ports are "integer" here: every value Azurite's "number" accepts for a port is an integer.
      const accepted = [theirs.type ?? []].flat().every((t) => types.includes(t) || (t === 'number' && types.includes('integer')));
      assert.ok(accepted, `${key}: type ${JSON.stringify(theirs.type)} against ${JSON.stringify(setting.type)}`);
    }
  });
});
