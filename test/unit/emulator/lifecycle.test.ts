/**
 * Idempotent, serialized lifecycle commands (Emulator.start/stop/clean/restart) against the real
 * engine: what the Azure Functions extension and vscode-azurestorage rely on when they call
 * `azurite.start_*` on a service that may already run.
 */
import * as assert from 'node:assert/strict';
import { isPortFree } from '../../../src/emulator/ports';
import type { ServiceState } from '../../../src/core/lifecycle';
import { clients, disposeAfterEach, makeEmulator } from '../helpers/emulatorFixture';


describe('Emulator lifecycle: idempotent and serialized (real engine)', function () {
  this.timeout(60_000);
  const track = disposeAfterEach();

  it('start on a running service resolves { ok: true }, keeps the server and its data, and changes no state', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }));
    assert.deepEqual(await emulator.start('blob'), { ok: true });
    const endpoint = emulator.endpoint('blob');
    await clients(emulator).blob().getContainerClient('kept').create();
    const states: ServiceState[] = [];
    emulator.onDidChangeState(({ state }) => states.push(state));
    assert.deepEqual(await emulator.start('blob'), { ok: true });
    assert.deepEqual(emulator.endpoint('blob'), endpoint);
    assert.deepEqual(states, []);
    assert.equal(log.of('error').length, 0);
    assert.equal(log.of('info').filter((l) => l.startsWith('Blob: listening on')).length, 1);
    assert.ok(await clients(emulator).blob().getContainerClient('kept').exists());
  });

  it('a start during a start shares its outcome: one server, one "listening" line', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }));
    const starts = await Promise.all([emulator.start('queue'), emulator.start('queue'), emulator.start('queue')]);
    assert.deepEqual(starts, [{ ok: true }, { ok: true }, { ok: true }]);
    assert.equal(log.of('info').filter((l) => l.startsWith('Queue: listening on')).length, 1);
    assert.equal(emulator.status('queue').status, 'running');
  });

  it('a failed start is shared too: every caller gets the same failure', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, tablePort: 70000 }));
    const [a, b] = await Promise.all([emulator.start('table'), emulator.start('table')]);
    assert.equal(a.ok, false);
    assert.deepEqual(a, b);
  });

  it('close on a stopped service resolves { ok: true }; a stop during a start waits for it, then frees the port', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    assert.deepEqual(await emulator.stop('blob'), { ok: true });
    let port: number | undefined;
    emulator.onDidChangeState(({ state }) => { if (state.status === 'running') port = state.endpoint.port; });
    const starting = emulator.start('blob');
    const stopping = emulator.stop('blob');
    assert.deepEqual(await starting, { ok: true });
    assert.deepEqual(await stopping, { ok: true });
    assert.equal(emulator.status('blob').status, 'closed');
    assert.ok(port !== undefined && await isPortFree('127.0.0.1', port));
  });

  it('start, stop, start asked at once run in that order and end running', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const seen: string[] = [];
    emulator.onDidChangeState(({ kind, state }) => { if (kind === 'table') seen.push(state.status); });
    const outcomes = await Promise.all([emulator.start('table'), emulator.stop('table'), emulator.start('table')]);
    assert.deepEqual(outcomes, [{ ok: true }, { ok: true }, { ok: true }]);
    assert.deepEqual(seen, ['starting', 'running', 'closing', 'closed', 'starting', 'running']);
  });

  it('stopAll stops a service whose start is under way', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const starting = emulator.start('blob');
    const stopped = await emulator.stopAll();
    assert.deepEqual(await starting, { ok: true });
    assert.ok(stopped.every((o) => o.ok), JSON.stringify(stopped));
    assert.equal(emulator.status('blob').status, 'closed');
  });
});
