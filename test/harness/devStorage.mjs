// The development account (devstoreaccount1) as the e2e tests reach it: its key, a connection string
// to the ports a test chose, a wait for a service to answer there, and this extension's status bar
// items. Used by test/e2e/*.test.mjs.
import { httpStatus, waitFor } from './codeServer.mjs';

/** devstoreaccount1's well-known shared key (Azurite's default account; public, for local use only). */
export const DEV_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/**
 * A connection string of devstoreaccount1 with a path-style endpoint on 127.0.0.1 per port given.
 * @param {{ blob?: number, queue?: number, table?: number }} ports
 * @returns {string}
 */
export function devConnectionString(ports) {
  const endpoints = Object.entries({ Blob: ports.blob, Queue: ports.queue, Table: ports.table })
    .filter(([, port]) => port !== undefined)
    .map(([name, port]) => `${name}Endpoint=http://127.0.0.1:${port}/devstoreaccount1;`);
  return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT_KEY};${endpoints.join('')}`;
}

/**
 * Resolves once a blob or queue service answers on `port` with any HTTP status (an unsigned listing
 * of the account, which Azurite answers 403).
 * @param {'blob' | 'queue'} kind
 * @param {number} port
 * @param {{ what?: string, timeoutMs?: number, intervalMs?: number }} [options] `what` prefixes the
 *   timeout's message (e.g. "after the reload"); 60 s and 50 ms by default
 * @throws Error "Timed out after … waiting for …" when nothing answers in time
 */
export function serviceAnswering(kind, port, { what, timeoutMs = 60_000, intervalMs = 50 } = {}) {
  return waitFor(`${what !== undefined ? `${what}: ` : ''}the ${kind} service on port ${port}`, () => httpStatus(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`), { timeoutMs, intervalMs });
}

/**
 * The CSS selector of one of this extension's status bar items.
 * @param {'blob' | 'queue' | 'table' | 'memory'} kind
 */
export function statusItem(kind) {
  return `#workbench\\.parts\\.statusbar .statusbar-item[id="storage-emulators.storage-emulators.azurite.${kind}"]`;
}
