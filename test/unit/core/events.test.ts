/**
 * events.ts: the minimal Emitter: fire order, unsubscribe, dispose, a throwing listener.
 */
import * as assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/events';

describe('core/events', () => {
  it('calls every listener synchronously, in subscription order, with the value', () => {
    const emitter = new Emitter<number>();
    const calls: string[] = [];
    emitter.event((v) => calls.push(`a${v}`));
    emitter.event((v) => calls.push(`b${v}`));
    emitter.fire(1);
    calls.push('after');
    emitter.fire(2);
    assert.deepEqual(calls, ['a1', 'b1', 'after', 'a2', 'b2']);
  });

  it('does nothing when fired without listeners', () => {
    assert.doesNotThrow(() => new Emitter<string>().fire('x'));
  });

  it('stops calling a listener whose subscription is disposed, and keeps the others', () => {
    const emitter = new Emitter<string>();
    const calls: string[] = [];
    const a = emitter.event((v) => calls.push(`a:${v}`));
    emitter.event((v) => calls.push(`b:${v}`));
    emitter.fire('1');
    a.dispose();
    a.dispose(); // twice is harmless
    emitter.fire('2');
    assert.deepEqual(calls, ['a:1', 'b:1', 'b:2']);
  });

  it('removes every listener on dispose', () => {
    const emitter = new Emitter<string>();
    const calls: string[] = [];
    emitter.event((v) => calls.push(`a:${v}`));
    emitter.event((v) => calls.push(`b:${v}`));
    emitter.dispose();
    emitter.fire('x');
    assert.equal(calls.length, 0);
    const later = emitter.event((v) => calls.push(`c:${v}`));
    emitter.fire('y');
    assert.deepEqual(calls, ['c:y']);
    later.dispose();
  });

  it('does not call a listener added during fire until the next fire', () => {
    const emitter = new Emitter<number>();
    const calls: string[] = [];
    let added = false;
    emitter.event((v) => {
      calls.push(`a${v}`);
      if (!added) {
        added = true;
        emitter.event((w) => calls.push(`late${w}`));
      }
    });
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(calls, ['a1', 'a2', 'late2']);
  });

  describe('a throwing listener', () => {
    const originalError = console.error;
    afterEach(() => {
      console.error = originalError;
    });

    it('does not stop the others and is reported to console.error', () => {
      const logged: unknown[][] = [];
      console.error = (...args: unknown[]) => {
        logged.push(args);
      };
      const emitter = new Emitter<string>();
      const calls: string[] = [];
      const boom = new Error('listener failed');
      emitter.event((v) => calls.push(`a:${v}`));
      emitter.event(() => {
        throw boom;
      });
      emitter.event((v) => calls.push(`c:${v}`));

      assert.doesNotThrow(() => emitter.fire('x'));
      assert.deepEqual(calls, ['a:x', 'c:x']);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]![0], boom);

      emitter.fire('y');
      assert.deepEqual(calls, ['a:x', 'c:x', 'a:y', 'c:y']);
      assert.equal(logged.length, 2);
    });
  });
});
