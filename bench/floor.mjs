// The no-work HTTP floor: one server that answers every request the benchmark's SDK clients send
// (blob, queue and table, path-style URLs) with the smallest response each SDK accepts, after
// reading the whole body. No storage, no auth, no parsing beyond the URL: what is left of a request
// is the SDK client, Node's HTTP stack and the loopback, which no emulator can beat.
// startFloor() runs it in the calling process; startFloorProcess() in a child process of its own
// (`node bench/floor.mjs --serve` prints the connection string and serves until stdin closes).
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const DATE = new Date(0).toUTCString();
const KIB = Buffer.alloc(1024, 0x61);

const queueMessage = (text) =>
  '<?xml version="1.0" encoding="utf-8"?><QueueMessagesList><QueueMessage>' +
  '<MessageId>00000000-0000-0000-0000-000000000000</MessageId>' +
  `<InsertionTime>${DATE}</InsertionTime><ExpirationTime>${DATE}</ExpirationTime>` +
  `<PopReceipt>AAAAAA</PopReceipt><TimeNextVisible>${DATE}</TimeNextVisible>` +
  (text === undefined ? '' : `<DequeueCount>1</DequeueCount><MessageText>${text}</MessageText>`) +
  '</QueueMessage></QueueMessagesList>';
const ENQUEUED = Buffer.from(queueMessage(undefined));
const RECEIVED = Buffer.from(queueMessage('hello'));

function respond(req, res) {
  const url = req.url ?? '/';
  const common = { 'x-ms-request-id': '0', 'x-ms-version': req.headers['x-ms-version'] ?? '2025-01-05', date: DATE };
  if (req.method === 'GET' && url.includes('/messages')) {
    res.writeHead(200, { ...common, 'content-type': 'application/xml', 'content-length': RECEIVED.length });
    return res.end(RECEIVED);
  }
  if (req.method === 'POST' && url.includes('/messages')) {
    res.writeHead(201, { ...common, 'content-type': 'application/xml', 'content-length': ENQUEUED.length });
    return res.end(ENQUEUED);
  }
  if (req.method === 'DELETE') {
    res.writeHead(204, common);
    return res.end();
  }
  if (req.method === 'POST') { // table: create table or insert entity (Prefer: return-no-content)
    res.writeHead(204, { ...common, etag: 'W/"datetime\'2024-01-01T00%3A00%3A00Z\'"', 'preference-applied': 'return-no-content' });
    return res.end();
  }
  if (req.method === 'GET' || req.method === 'HEAD') { // blob download
    res.writeHead(200, {
      ...common, etag: '"0x1"', 'last-modified': DATE, 'content-length': KIB.length,
      'content-type': 'application/octet-stream', 'x-ms-blob-type': 'BlockBlob', 'accept-ranges': 'bytes',
    });
    return res.end(req.method === 'GET' ? KIB : undefined);
  }
  // PUT: create container or queue, upload blob, stage block, commit block list
  res.writeHead(201, { ...common, etag: '"0x1"', 'last-modified': DATE, 'x-ms-request-server-encrypted': 'true', 'content-length': 0 });
  return res.end();
}

/** Starts the floor on a free port. @returns {{ port, connectionString, close() }} */
export async function startFloor() {
  const server = http.createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => respond(req, res));
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  const base = `http://127.0.0.1:${port}/devstoreaccount1`;
  return {
    port,
    connectionString: connectionStringFor(base, base, base),
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
/** A connection string for the development account with the three endpoint URLs. */
export function connectionStringFor(blob, queue, table) {
  return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${ACCOUNT_KEY};` +
    `BlobEndpoint=${blob};QueueEndpoint=${queue};TableEndpoint=${table};`;
}

/**
 * The floor in a child process of its own. @returns {{ pid, connectionString, close() }}
 * Rejects if the child does not print its connection string within 30 s.
 */
export async function startFloorProcess() {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const lines = createInterface({ input: child.stdout });
  const connectionString = await Promise.race([
    once(lines, 'line').then(([line]) => line),
    exited.then(([code]) => { throw new Error(`the floor process exited (${code}) before it served`); }),
    new Promise((_, reject) => setTimeout(() => reject(new Error('the floor process did not start in 30 s')), 30_000).unref()),
  ]);
  return {
    pid: child.pid,
    connectionString,
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--serve')) {
  const floor = await startFloor();
  process.stdout.write(`${floor.connectionString}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void floor.close().then(() => process.exit(0)));
}
