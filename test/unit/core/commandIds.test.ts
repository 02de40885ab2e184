import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, PASSIVE_CONTEXT_KEY, serviceCommand } from '../../../src/core/commandIds';
import { SERVICE_KINDS } from '../../../src/core/services';

const packageJson = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string }[];
    menus: { commandPalette: { command: string; when?: string }[] };
    views: Record<string, { id: string; when?: string }[]>;
  };
};

describe('core/commandIds', () => {
  it('names exactly the commands package.json contributes', () => {
    const ours = [...Object.values(COMMANDS), ...SERVICE_KINDS.flatMap((k) => (['start', 'close', 'clean'] as const).map((v) => serviceCommand(v, k)))];
    assert.deepEqual([...ours].sort(), packageJson.contributes.commands.map((c) => c.command).sort());
  });

  it('hides the Storage view and every command the Azurite extension does not have while passive beside it (nothing of ours runs them)', () => {
    const azurites = new Set([COMMANDS.start, COMMANDS.close, COMMANDS.clean, ...SERVICE_KINDS.flatMap((k) => (['start', 'close', 'clean'] as const).map((v) => serviceCommand(v, k)))]);
    const palette = new Map(packageJson.contributes.menus.commandPalette.map((m) => [m.command, m.when]));
    for (const { command } of packageJson.contributes.commands.filter((c) => !azurites.has(c.command))) {
      const when = palette.get(command);
      assert.ok(when === 'false' || when?.includes(`!${PASSIVE_CONTEXT_KEY}`), `${command}: when ${String(when)}`);
    }
    for (const view of Object.values(packageJson.contributes.views).flat()) assert.equal(view.when, `!${PASSIVE_CONTEXT_KEY}`, view.id);
  });

  it('keeps the Azurite extension\'s per-service ids', () => {
    assert.equal(serviceCommand('start', 'blob'), 'azurite.start_blob');
    assert.equal(serviceCommand('clean', 'table'), 'azurite.clean_table');
  });
});
