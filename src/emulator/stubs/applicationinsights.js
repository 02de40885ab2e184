// Stand-in for the `applicationinsights` package inside our bundle (esbuild alias, see esbuild.mjs).
// azurite's common/Telemetry.js requires it at load time, but telemetry is only set up by
// AzuriteTelemetryClient.init(), which this extension never calls; request tracing checks for a
// client first. Loading the real package costs several MiB and seconds (docs/ENGINE.md, "Loading it").
// If anything ever does call it, fail loudly instead of silently sending nothing.
'use strict';
function notBundled() {
  throw new Error('applicationinsights is not bundled in the Storage Emulators extension (telemetry is off)');
}
module.exports = { setup: notBundled, start: notBundled, TelemetryClient: notBundled, defaultClient: undefined };
