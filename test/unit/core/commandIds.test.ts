import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, serviceCommand } from '../../../src/core/commandIds';
import { SERVICE_KINDS } from '../../../src/core/services';

const packageJson = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[] };
};

describe('core/commandIds', () => {
  it('names exactly the commands package.json contributes', () => {
    const ours = [...Object.values(COMMANDS), ...SERVICE_KINDS.flatMap((k) => (['start', 'close', 'clean'] as const).map((v) => serviceCommand(v, k)))];
    assert.deepEqual([...ours].sort(), packageJson.contributes.commands.map((c) => c.command).sort());
  });

  it('keeps the Azurite extension\'s per-service ids', () => {
    assert.equal(serviceCommand('start', 'blob'), 'azurite.start_blob');
    assert.equal(serviceCommand('clean', 'table'), 'azurite.clean_table');
  });
});
