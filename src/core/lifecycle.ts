/**
 * The lifecycle of one service, modelled on Azurite's VS Code server manager states
 * (azurite/dist/src/common/VSCServerManager{Closed,Starting,Running,Closing,Cleaning}State.js):
 *
 *   closed ──start──▶ starting ──started──▶ running ──close──▶ closing ──closed──▶ closed
 *     │                  └──failed(message)──▶ closed (error kept)
 *     └──clean──▶ cleaning ──cleaned──▶ closed      (cleaning only from closed)
 *
 * `transition()` never throws: an illegal event returns an {@link IllegalTransition}.
 */

/** Where a running service listens. `url` is e.g. `http://127.0.0.1:10000`. */
export interface Endpoint {
  readonly host: string;
  /** The real port (differs from the setting when the setting is 0). */
  readonly port: number;
  readonly url: string;
}

/** The state of one service. `error` on `closed` keeps the message of the last failure. */
export type ServiceState =
  | { readonly status: 'closed'; readonly error?: string }
  | { readonly status: 'starting' }
  | { readonly status: 'running'; readonly endpoint: Endpoint }
  | { readonly status: 'closing' }
  | { readonly status: 'cleaning' };

/** The status names, for exhaustive switches. */
export type ServiceStatus = ServiceState['status'];

/** What can happen to a service. */
export type LifecycleEvent =
  | { readonly type: 'start' }
  | { readonly type: 'started'; readonly endpoint: Endpoint }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'close' }
  | { readonly type: 'closed' }
  | { readonly type: 'clean' }
  | { readonly type: 'cleaned' };

/** Returned instead of a new state when an event is not allowed in the current state. */
export class IllegalTransition {
  constructor(
    readonly from: ServiceStatus,
    readonly event: LifecycleEvent['type'],
  ) {}

  /** e.g. "cannot clean while running". */
  get message(): string {
    return `cannot ${this.event} while ${this.from}`;
  }
}

/** The state every service begins in. */
export const INITIAL_STATE: ServiceState = { status: 'closed' };

/**
 * The one transition function.
 * @returns the next state, or an IllegalTransition (never throws).
 */
export function transition(state: ServiceState, event: LifecycleEvent): ServiceState | IllegalTransition {
  switch (state.status) {
    case 'closed':
      if (event.type === 'start') return { status: 'starting' };
      if (event.type === 'clean') return { status: 'cleaning' };
      break;
    case 'starting':
      if (event.type === 'started') return { status: 'running', endpoint: event.endpoint };
      if (event.type === 'failed') return { status: 'closed', error: event.message };
      break;
    case 'running':
      if (event.type === 'close') return { status: 'closing' };
      break;
    case 'closing':
      if (event.type === 'closed') return { status: 'closed' };
      if (event.type === 'failed') return { status: 'closed', error: event.message };
      break;
    case 'cleaning':
      if (event.type === 'cleaned') return { status: 'closed' };
      if (event.type === 'failed') return { status: 'closed', error: event.message };
      break;
  }
  return new IllegalTransition(state.status, event.type);
}

/** True while a transition is under way (starting, closing, cleaning): no command may be issued. */
export function isBusy(state: ServiceState): boolean {
  return state.status === 'starting' || state.status === 'closing' || state.status === 'cleaning';
}
