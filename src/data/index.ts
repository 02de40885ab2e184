/**
 * dist/data.js: the data layer, with the Azure SDKs it uses, in a bundle of its own so that
 * activation does not parse them. The VS Code layer loads it on first use (src/ui/dataLayer.ts).
 */
export * from './clients';
export * from './snapshot';
export { SnapshotFormatError } from '../core/snapshotFormat';
export * from './browse';
