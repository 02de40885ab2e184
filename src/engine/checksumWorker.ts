/**
 * The checksum thread's entry (dist/checksumWorker.js; out/checksum-worker.js for tests and the
 * bench): see ./checksumThread.ts.
 */
import { serveChecksums } from './checksumThread';

serveChecksums();
