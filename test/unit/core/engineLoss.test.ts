/** engineLoss.ts: what the user reads when the engine ends under the services. */
import * as assert from 'node:assert/strict';
import { describeEngineLoss, describeSelfClosure } from '../../../src/core/engineLoss';
import type { ServiceKind } from '../../../src/core/services';

describe('core/engineLoss', () => {
  const inMemory = (kinds: ServiceKind[]) => (k: ServiceKind) => kinds.includes(k);

  it('names the reason, the stopped services, the in-memory data gone and what to do', () => {
    assert.equal(
      describeEngineLoss('it ran out of memory (azurite.engine.heapLimit is 128 MB)', ['blob', 'queue'], inMemory(['blob', 'queue'])),
      'The emulator engine stopped: it ran out of memory (azurite.engine.heapLimit is 128 MB). Blob, Queue are stopped. ' +
        'In-memory data of Blob and Queue is gone. Start a service to bring a new engine up.',
    );
  });

  it('says data on disk is kept up to its last save, and "is" for one service', () => {
    assert.equal(
      describeEngineLoss('it was ended by SIGKILL', ['table'], inMemory([])),
      'The emulator engine stopped: it was ended by SIGKILL. Table is stopped. Data on disk is kept, up to its last save (Table). ' +
        'Start a service to bring a new engine up.',
    );
  });

  it('splits a mixed set, and says nothing of services when none ran', () => {
    const mixed = describeEngineLoss('it exited with code 70', ['blob', 'queue', 'table'], inMemory(['blob']));
    assert.match(mixed, /Blob, Queue, Table are stopped\. In-memory data of Blob is gone\. Data on disk is kept, up to its last save \(Queue, Table\)\./);
    assert.equal(describeEngineLoss('it exited with code 1', [], inMemory([])), 'The emulator engine stopped: it exited with code 1. Start a service to bring a new engine up.');
  });
});

describe('describeSelfClosure', () => {
  it('memory mode: the data is gone, and a start runs it again', () => {
    assert.equal(describeSelfClosure('queue', true, '/data', 'boom.', undefined),
      'Azurite closed the Queue service: its garbage collection of unused content failed (boom). Its in-memory data is gone. Start Queue to run it again.');
  });

  it('disk mode with a failed save says what is on disk; without a GC message it points at azurite.debug', () => {
    const text = describeSelfClosure('blob', false, '/data', undefined, 'ENOSPC: no space left on device.');
    assert.match(text, /^Azurite closed the Blob service after an internal error \(turn on azurite\.debug to see Azurite's log\)\. Saving its data failed \(ENOSPC: no space left on device\): what is on disk is from its last save\. /);
    assert.match(text, /corrupted metadata files in "\/data" \(azurite\.location\)\. Start Blob to try again;/);
  });
});
