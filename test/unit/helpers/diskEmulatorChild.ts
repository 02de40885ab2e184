/**
 * A process that runs an emulator in disk mode and nothing else, for tests that kill it: started as
 * `node diskEmulatorChild.js LOCATION PROCESS_PATH ENGINE_PATH`, it starts Blob, Queue and Table on
 * free ports (the engine in its own process, as in the extension), prints one JSON line
 * `{ "connectionString": …, "enginePid": … }` (the engine's own process) and runs until it is killed.
 * A line `stop KIND` on its stdin begins a stop of that service (as deactivate() does) and does not
 * wait for it.
 */
import * as os from 'node:os';
import { createInterface } from 'node:readline';
import { parseSettings } from '../../../src/core/settings';
import { Emulator } from '../../../src/emulator/emulator';

const [location, processPath, enginePath] = process.argv.slice(2);
if (location === undefined || processPath === undefined || enginePath === undefined) throw new Error('usage: diskEmulatorChild.js LOCATION PROCESS_PATH ENGINE_PATH');
const settings = parseSettings({ blobPort: 0, queuePort: 0, tablePort: 0, location, silent: true },
  { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: location, rootHasAzuriteData: false });
const quiet = { info() {}, error(line: string) { process.stderr.write(`${line}\n`); }, access() {}, debug() {} };
const emulator = new Emulator(settings, quiet, { processPath, enginePath });
void (async () => {
  for (const kind of ['blob', 'queue', 'table'] as const) {
    const outcome = await emulator.start(kind);
    if (!outcome.ok) throw new Error(outcome.message);
  }
  process.stdout.write(`${JSON.stringify({ connectionString: emulator.connectionString(), enginePid: emulator.enginePid })}\n`);
  setInterval(() => undefined, 60_000);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [command, kind] = line.split(' ');
    if (command === 'stop' && (kind === 'blob' || kind === 'queue' || kind === 'table')) void emulator.stop(kind);
  });
})();
