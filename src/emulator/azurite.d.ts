/**
 * Types for the deep azurite 3.37 imports used by src/emulator/azurite.ts (the package ships no
 * .d.ts and its `main` requires vscode). Only what we call is declared; shapes are read from
 * node_modules/azurite/dist/src/**.js.
 */
declare module 'azurite/dist/src/common/ServerBase' {
  import type { Server } from 'node:http';
  export default abstract class ServerBase {
    readonly host: string;
    readonly port: number;
    /** The (stoppable-wrapped) http or https server. */
    readonly httpServer: Server;
    getHttpServerAddress(): string;
    getStatus(): string;
    start(): Promise<void>;
    close(): Promise<void>;
    clean(): Promise<void>;
    /** Closes GC, extent and metadata stores (protected in TypeScript, callable in JS). */
    afterClose(): Promise<void>;
  }
}

declare module 'azurite/dist/src/blob/BlobConfiguration' {
  import type { Writable } from 'node:stream';
  export interface PersistenceLocation { locationId: string; locationPath: string; maxConcurrency: number }
  export default class BlobConfiguration {
    constructor(
      host?: string, port?: number, keepAliveTimeout?: number, metadataDBPath?: string, extentDBPath?: string,
      persistencePathArray?: PersistenceLocation[], enableAccessLog?: boolean, accessLogWriteStream?: Writable,
      enableDebugLog?: boolean, debugLogFilePath?: string, loose?: boolean, skipApiVersionCheck?: boolean | object,
      cert?: string, key?: string, pwd?: string, oauth?: string, disableProductStyleUrl?: boolean,
      isMemoryPersistence?: boolean, memoryStore?: unknown);
  }
}
declare module 'azurite/dist/src/queue/QueueConfiguration' {
  import type { Writable } from 'node:stream';
  import type { PersistenceLocation } from 'azurite/dist/src/blob/BlobConfiguration';
  export default class QueueConfiguration {
    constructor(
      host?: string, port?: number, keepAliveTimeout?: number, metadataDBPath?: string, extentDBPath?: string,
      persistencePathArray?: PersistenceLocation[], enableAccessLog?: boolean, accessLogWriteStream?: Writable,
      enableDebugLog?: boolean, debugLogFilePath?: string, loose?: boolean, skipApiVersionCheck?: boolean | object,
      cert?: string, key?: string, pwd?: string, oauth?: string, disableProductStyleUrl?: boolean,
      isMemoryPersistence?: boolean, memoryStore?: unknown);
  }
}
declare module 'azurite/dist/src/table/TableConfiguration' {
  import type { Writable } from 'node:stream';
  /** Note: debug/access argument order is the reverse of Blob/Queue. */
  export default class TableConfiguration {
    constructor(
      host?: string, port?: number, keepAliveTimeout?: number, dbPath?: string, enableDebugLog?: boolean,
      enableAccessLog?: boolean, accessLogWriteStream?: Writable, debugLogFilePath?: string, loose?: boolean,
      skipApiVersionCheck?: boolean | object, cert?: string, key?: string, pwd?: string, oauth?: string,
      disableProductStyleUrl?: boolean, isMemoryPersistence?: boolean);
  }
}
declare module 'azurite/dist/src/blob/BlobServer' {
  import ServerBase from 'azurite/dist/src/common/ServerBase';
  import type BlobConfiguration from 'azurite/dist/src/blob/BlobConfiguration';
  export default class BlobServer extends ServerBase { constructor(configuration: BlobConfiguration) }
}
declare module 'azurite/dist/src/queue/QueueServer' {
  import ServerBase from 'azurite/dist/src/common/ServerBase';
  import type QueueConfiguration from 'azurite/dist/src/queue/QueueConfiguration';
  export default class QueueServer extends ServerBase { constructor(configuration: QueueConfiguration) }
}
declare module 'azurite/dist/src/table/TableServer' {
  import ServerBase from 'azurite/dist/src/common/ServerBase';
  import type TableConfiguration from 'azurite/dist/src/table/TableConfiguration';
  export default class TableServer extends ServerBase { constructor(configuration: TableConfiguration) }
}
declare module 'azurite/dist/src/common/persistence/MemoryExtentStore' {
  export interface MemoryExtentChunk { id: string; count: number; offset: number; chunks: Buffer[] }
  export class MemoryExtentChunkStore {
    constructor(sizeLimit?: number);
    clear(categoryName: string): void;
    set(categoryName: string, chunk: MemoryExtentChunk): void;
    trySet(categoryName: string, chunk: MemoryExtentChunk): boolean;
    get(categoryName: string, id: string): MemoryExtentChunk | undefined;
    delete(categoryName: string, id: string): boolean;
    /** Bytes held, all categories. */
    totalSize(): number;
    /** False (and unchanged) when sizeLimit is below current use; undefined = no limit. */
    setSizeLimit(sizeLimit: number | undefined): boolean;
    sizeLimit(): number | undefined;
  }
  /** Math.trunc(os.totalmem() * 0.5) bytes. */
  export const DEFAULT_EXTENT_MEMORY_LIMIT: number;
}
declare module 'azurite/dist/src/common/Logger' {
  export interface LoggerStrategy { log(level: string, message: string, contextID?: string): void }
  const logger: { strategy: LoggerStrategy };
  export default logger;
}
declare module 'azurite/dist/src/common/NoLoggerStrategy' {
  import type { LoggerStrategy } from 'azurite/dist/src/common/Logger';
  export default class NoLoggerStrategy implements LoggerStrategy { log(level: string, message: string, contextID?: string): void }
}

declare module 'azurite/dist/src/common/persistence/AllExtentsAsyncIterator' {
  /** Iterates extent ids written before `time - DEFAULT_EXTENT_GC_PROTECT_TIME_IN_MS`. */
  export default class AllExtentsAsyncIterator {
    constructor(extentMetadata: { listExtents(...args: unknown[]): Promise<unknown> });
    time: Date;
    next(): Promise<{ done: boolean; value: string[] }>;
  }
}
declare module 'azurite/dist/src/common/utils/constants' {
  /** 10 minutes: azurite's GC spares extents written more recently. */
  export const DEFAULT_EXTENT_GC_PROTECT_TIME_IN_MS: number;
}
declare module 'azurite/dist/src/blob/gc/BlobGCManager' {
  export default class BlobGCManager {
    constructor(referredExtentsProvider: unknown, allExtentsProvider: unknown, extentStore: unknown, errorHandler: (err: Error) => void, logger: unknown, gcIntervalInMS?: number);
    start(): Promise<void>;
    close(): Promise<void>;
  }
}
declare module 'azurite/dist/src/queue/gc/QueueGCManager' {
  export default class QueueGCManager {
    constructor(referredExtentsProvider: unknown, allExtentsProvider: unknown, extentStore: unknown, errorHandler: (err: Error) => void, logger: unknown, gcIntervalInMS?: number);
    start(): Promise<void>;
    close(): Promise<void>;
  }
}

/**
 * A service's storage-context middleware module (blob/middlewares/blobStorageContext.middleware.js,
 * queue/middlewares/queueStorageContext.middleware.js, table/middleware/tableStorageContext.middleware.js):
 * its default export is the middleware factory that the API-version seam wraps (esbuild.mjs).
 */
declare module 'azurite/dist/src/blob/middlewares/blobStorageContext.middleware' {
  const createMiddleware: (skipApiVersionCheck: unknown, ...rest: unknown[]) => unknown;
  export default createMiddleware;
}
declare module 'azurite/dist/src/queue/middlewares/queueStorageContext.middleware' {
  const createMiddleware: (skipApiVersionCheck: unknown, ...rest: unknown[]) => unknown;
  export default createMiddleware;
}
declare module 'azurite/dist/src/table/middleware/tableStorageContext.middleware' {
  const createMiddleware: (skipApiVersionCheck: unknown, ...rest: unknown[]) => unknown;
  export default createMiddleware;
}
