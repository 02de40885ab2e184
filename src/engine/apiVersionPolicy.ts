/**
 * The API-version seam: `azurite.apiVersionCheck` applied to each request, live.
 *
 * azurite 3.37 checks `x-ms-version` in each service's storage-context middleware
 * (blob/middlewares/blobStorageContext.middleware.js, queue/middlewares/queueStorageContext.middleware.js,
 * table/middleware/tableStorageContext.middleware.js). Each file's default export is a factory
 * `(skipApiVersionCheck, …) => (req, res, next) => …`, which the request listener factory calls once per
 * server with the configuration's `skipApiVersionCheck`, read from the module's exports at call time.
 * When the flag is false, the middleware answers a version missing from `ValidAPIVersions` with 400.
 *
 * esbuild.mjs appends one line to each of those files when bundling:
 * `exports.default = withApiVersionPolicy(exports.default, constants_3.ValidAPIVersions)`. The wrapped
 * factory passes an ordinary boolean straight through (azurite's behaviour is unchanged). Given an
 * {@link ApiVersionPolicy} object instead (src/emulator/azurite.ts passes one as the configuration's
 * `skipApiVersionCheck`), it builds azurite's middleware twice, with the check and without, and picks
 * one per request from the policy's `mode`, which it reads on every request: a change applies to a
 * running server at once, without a restart. A refused version therefore gets azurite's own 400, and
 * a served one azurite's own handling. node_modules is untouched and this file imports no azurite.
 * Verified by test/unit/engine/apiVersionPolicy.test.ts (raw requests through the bundled engine).
 */
import { decideApiVersion, newestApiVersion, type ApiVersionCheck } from '../core/apiVersions';

/** Marks a policy object (a Symbol.for key, so that copies of this module in two bundles agree). */
const POLICY = Symbol.for('storage-emulators.apiVersionPolicy');
/** Marks a middleware factory this seam has wrapped; its value is the newest version it knows. */
const WRAPPED = Symbol.for('storage-emulators.apiVersionSeam');

/** One service's policy, shared with its running server; `mode` is read on every request. */
export interface ApiVersionPolicy {
  readonly [POLICY]: true;
  /** The policy in force. Assigning it applies to the running server at once. */
  mode: ApiVersionCheck;
  /**
   * Called by the seam when a request with a version newer than the engine knows is served:
   * `asked` is the request's `x-ms-version`, `servedAs` the newest version the engine knows.
   */
  servedNewer(asked: string, servedAs: string): void;
}

/**
 * Makes a policy.
 * @param mode the initial mode
 * @param onFirstNewer called once per distinct newer version (for the first request of each), with
 *   the version asked for and the version it is served as; later requests of that version are silent
 */
export function createApiVersionPolicy(mode: ApiVersionCheck, onFirstNewer: (asked: string, servedAs: string) => void): ApiVersionPolicy {
  const announced = new Set<string>();
  return {
    [POLICY]: true,
    mode,
    servedNewer(asked, servedAs) {
      // Bounded: a client inventing versions cannot grow this without limit.
      if (announced.has(asked) || announced.size >= 256) return;
      announced.add(asked);
      onFirstNewer(asked, servedAs);
    },
  };
}

function isPolicy(value: unknown): value is ApiVersionPolicy {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[POLICY] === true;
}

/** The part of an express request and middleware the seam uses. */
type Request = { readonly headers: Readonly<Record<string, string | string[] | undefined>> };
type Middleware = (req: Request, res: unknown, next: (err?: unknown) => void) => unknown;
type MiddlewareFactory = (skipApiVersionCheck: unknown, ...rest: unknown[]) => Middleware;

/**
 * Wraps one of azurite's storage-context middleware factories (see the file comment).
 * @param factory azurite's factory, `(skipApiVersionCheck, …rest) => middleware`
 * @param known azurite's `ValidAPIVersions` for that service
 * @throws Error when `known` is empty (the build's seam check would then be wrong)
 */
export function withApiVersionPolicy(factory: MiddlewareFactory, known: readonly string[]): MiddlewareFactory {
  const newest = newestApiVersion(known);
  const wrapped: MiddlewareFactory = (skip, ...rest) => {
    if (!isPolicy(skip)) return factory(skip, ...rest);
    const checked = factory(false, ...rest);
    const unchecked = factory(true, ...rest);
    return (req, res, next) => {
      const header = req.headers['x-ms-version'];
      const version = typeof header === 'string' ? header : undefined;
      switch (decideApiVersion(skip.mode, version, known, newest)) {
        case 'azurite': return checked(req, res, next);
        case 'newer': skip.servedNewer(version!, newest); return unchecked(req, res, next);
        case 'skip': return unchecked(req, res, next);
      }
    };
  };
  Object.defineProperty(wrapped, WRAPPED, { value: newest });
  return wrapped;
}

/**
 * The newest API version a wrapped factory knows, or undefined when `factory` was not wrapped (the
 * engine was built without this seam: a policy object would then turn azurite's check off).
 */
export function seamNewestVersion(factory: unknown): string | undefined {
  const value = typeof factory === 'function' ? (factory as unknown as Record<symbol, unknown>)[WRAPPED] : undefined;
  return typeof value === 'string' ? value : undefined;
}
