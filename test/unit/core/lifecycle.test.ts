/**
 * lifecycle.ts: every legal transition, every illegal one (returned, never thrown), isBusy.
 */
import * as assert from 'node:assert/strict';
import {
  IllegalTransition,
  INITIAL_STATE,
  isBusy,
  transition,
  type Endpoint,
  type LifecycleEvent,
  type ServiceState,
  type ServiceStatus,
} from '../../../src/core/lifecycle';

const endpoint: Endpoint = { host: '127.0.0.1', port: 10000, url: 'http://127.0.0.1:10000' };

const STATES: Record<ServiceStatus, ServiceState> = {
  closed: { status: 'closed' },
  starting: { status: 'starting' },
  running: { status: 'running', endpoint },
  closing: { status: 'closing' },
  cleaning: { status: 'cleaning' },
};

const EVENTS: Record<LifecycleEvent['type'], LifecycleEvent> = {
  start: { type: 'start' },
  started: { type: 'started', endpoint },
  failed: { type: 'failed', message: 'port 10000 is already in use' },
  close: { type: 'close' },
  closed: { type: 'closed' },
  clean: { type: 'clean' },
  cleaned: { type: 'cleaned' },
};

/** Every legal (state, event) → next state. Anything not listed is illegal. */
const LEGAL: Record<string, ServiceState> = {
  'closed+start': { status: 'starting' },
  'closed+clean': { status: 'cleaning' },
  'starting+started': { status: 'running', endpoint },
  'starting+failed': { status: 'closed', error: 'port 10000 is already in use' },
  'running+close': { status: 'closing' },
  'closing+closed': { status: 'closed' },
  'closing+failed': { status: 'closed', error: 'port 10000 is already in use' },
  'cleaning+cleaned': { status: 'closed' },
  'cleaning+failed': { status: 'closed', error: 'port 10000 is already in use' },
};

describe('core/lifecycle', () => {
  it('begins closed, without an error', () => {
    assert.deepEqual(INITIAL_STATE, { status: 'closed' });
  });

  describe('transition', () => {
    for (const [from, state] of Object.entries(STATES)) {
      for (const [type, event] of Object.entries(EVENTS)) {
        const key = `${from}+${type}`;
        const next = LEGAL[key];
        if (next !== undefined) {
          it(`${from} --${type}--> ${next.status}`, () => {
            assert.deepEqual(transition(state, event), next);
          });
        } else {
          it(`${from} --${type}--> IllegalTransition "cannot ${type} while ${from}"`, () => {
            let result: ServiceState | IllegalTransition | undefined;
            assert.doesNotThrow(() => {
              result = transition(state, event);
            });
            assert.ok(result instanceof IllegalTransition, `expected IllegalTransition, got ${JSON.stringify(result)}`);
            assert.equal(result.from, from);
            assert.equal(result.event, type);
            assert.equal(result.message, `cannot ${type} while ${from}`);
          });
        }
      }
    }

    it('has exactly 9 legal transitions out of 35', () => {
      let legal = 0;
      for (const state of Object.values(STATES)) {
        for (const event of Object.values(EVENTS)) {
          if (!(transition(state, event) instanceof IllegalTransition)) legal++;
        }
      }
      assert.equal(legal, 9);
    });

    it('says "cannot clean while running"', () => {
      const r = transition({ status: 'running', endpoint }, { type: 'clean' });
      assert.ok(r instanceof IllegalTransition);
      assert.equal(r.message, 'cannot clean while running');
    });

    it('keeps the failure message on closed and carries the endpoint into running', () => {
      const failed = transition({ status: 'starting' }, { type: 'failed', message: 'EADDRINUSE: 127.0.0.1:10000' });
      assert.deepEqual(failed, { status: 'closed', error: 'EADDRINUSE: 127.0.0.1:10000' });
      const ep: Endpoint = { host: '0.0.0.0', port: 54321, url: 'http://0.0.0.0:54321' };
      const running = transition({ status: 'starting' }, { type: 'started', endpoint: ep });
      assert.deepEqual(running, { status: 'running', endpoint: ep });
    });

    it('treats closed-with-error like closed: start and clean allowed and the error is cleared', () => {
      const closedWithError: ServiceState = { status: 'closed', error: 'boom' };
      assert.deepEqual(transition(closedWithError, { type: 'start' }), { status: 'starting' });
      assert.deepEqual(transition(closedWithError, { type: 'clean' }), { status: 'cleaning' });
      const r = transition(closedWithError, { type: 'close' });
      assert.ok(r instanceof IllegalTransition);
      assert.equal(r.message, 'cannot close while closed');
    });

    it('runs a full cycle closed → starting → running → closing → closed → cleaning → closed', () => {
      const steps: LifecycleEvent[] = [
        { type: 'start' },
        { type: 'started', endpoint },
        { type: 'close' },
        { type: 'closed' },
        { type: 'clean' },
        { type: 'cleaned' },
      ];
      const seen: string[] = [];
      let state: ServiceState = INITIAL_STATE;
      for (const event of steps) {
        const next = transition(state, event);
        assert.ok(!(next instanceof IllegalTransition), `illegal: ${event.type} while ${state.status}`);
        state = next;
        seen.push(state.status);
      }
      assert.deepEqual(seen, ['starting', 'running', 'closing', 'closed', 'cleaning', 'closed']);
      assert.deepEqual(state, { status: 'closed' });
    });

    it('does not mutate the state it is given', () => {
      const state = Object.freeze({ status: 'starting' as const });
      assert.deepEqual(transition(state, { type: 'failed', message: 'x' }), { status: 'closed', error: 'x' });
      assert.deepEqual(state, { status: 'starting' });
    });
  });

  describe('isBusy', () => {
    it('is true while starting, closing or cleaning and false when closed or running', () => {
      assert.deepEqual(
        Object.values(STATES).map((s) => [s.status, isBusy(s)]),
        [
          ['closed', false],
          ['starting', true],
          ['running', false],
          ['closing', true],
          ['cleaning', true],
        ],
      );
      assert.equal(isBusy({ status: 'closed', error: 'boom' }), false);
    });
  });
});
