/**
 * Facts about the bundled engine that the VS Code side shows before the engine is loaded. esbuild.mjs
 * reads them from azurite when it bundles and writes them in as `__ENGINE_API_VERSIONS__`; code
 * compiled by tsc alone (the unit tests) has no such constant and gets undefined.
 */
import type { ServiceKind } from '../core/services';

declare const __ENGINE_API_VERSIONS__: Readonly<Record<ServiceKind, string>> | undefined;

/**
 * The newest `x-ms-version` each service of the bundled azurite knows (the first of its
 * `ValidAPIVersions`, from blob|queue|table/utils/constants.js), or undefined when unbundled.
 */
export const ENGINE_API_VERSIONS: Readonly<Record<ServiceKind, string>> | undefined =
  typeof __ENGINE_API_VERSIONS__ === 'object' ? __ENGINE_API_VERSIONS__ : undefined;
