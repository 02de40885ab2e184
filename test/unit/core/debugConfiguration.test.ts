/**
 * core/debugConfiguration.ts: telling F5 without a launch.json from a configuration, a launch that
 * starts a task before its session, and adding the connection variables to one without overriding
 * the user's.
 */
import * as assert from 'node:assert/strict';
import { addEnvironment, hasVariableName, isEmptyDebugConfiguration, startsTaskBeforeSession } from '../../../src/core/debugConfiguration';

describe('core/debugConfiguration', () => {
  it('takes {} and { noDebug } (F5 / Ctrl+F5 with no launch.json) as empty, and anything with a key as a configuration', () => {
    assert.deepEqual([{}, { noDebug: true }, { type: undefined }].map(isEmptyDebugConfiguration), [true, true, true]);
    assert.deepEqual([{ type: 'java' }, { name: 'Launch' }, { request: 'launch' }, { __azuriteStorageSeen: true }].map(isEmptyDebugConfiguration), [false, false, false, false]);
  });

  it('tells a launch that starts a task before its session: a preLaunchTask, or the Azure Functions pickProcess variable anywhere in it', () => {
    // The Azure Functions extension's .NET template: no preLaunchTask, its task started by the variable.
    assert.equal(startsTaskBeforeSession({ type: 'coreclr', request: 'attach', name: 'Attach to .NET Functions', processId: '${command:azureFunctions.pickProcess}' }), true);
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', preLaunchTask: 'func: host start' }), true);
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', args: ['--pid', 'pid=${command:azureFunctions.pickProcess}'] }), true);
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', env: { PID: '${command:azureFunctions.pickProcess}' } }), true);
    assert.equal(startsTaskBeforeSession({ type: 'coreclr', request: 'attach', processId: '${command:pickProcess}' }), false, 'the C# extension\'s own picker starts no task');
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', preLaunchTask: { type: 'func', command: 'host start' } }), true, 'a task identifier object');
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', preLaunchTask: '' }), false);
    assert.equal(startsTaskBeforeSession({ type: 'node', request: 'launch', program: 'app.js', port: 9229, sourceMaps: true, outFiles: null }), false);
    const cyclic: Record<string, unknown> = { type: 'node', request: 'launch' };
    cyclic.self = cyclic;
    assert.equal(startsTaskBeforeSession(cyclic), false, 'a configuration made in code that holds itself ends the look');
  });

  it('adds the variables a configuration does not set, in env or in its envFile, and keeps its own', () => {
    const vars = { AZURE_STORAGE_CONNECTION_STRING: 'ours', AzureWebJobsStorage: 'ours' };
    const none: Record<string, unknown> = { type: 'node' };
    assert.deepEqual(addEnvironment(none, vars, new Set(), 'linux'), ['AZURE_STORAGE_CONNECTION_STRING', 'AzureWebJobsStorage']);
    assert.deepEqual(none.env, vars);
    const own: Record<string, unknown> = { type: 'node', env: { AzureWebJobsStorage: 'cloud', OTHER: '1' } };
    assert.deepEqual(addEnvironment(own, vars, new Set(['AZURE_STORAGE_CONNECTION_STRING']), 'linux'), []);
    assert.deepEqual(own.env, { AzureWebJobsStorage: 'cloud', OTHER: '1' });
    const nothing: Record<string, unknown> = { type: 'node' };
    assert.deepEqual(addEnvironment(nothing, { AzureWebJobsStorage: undefined }, new Set(), 'linux'), []);
    assert.equal('env' in nothing, false, 'no env object made for nothing');
  });

  it('replaces a value a debugger copied into env from VS Code\'s own environment (the Python debugger\'s internalConsole), keeps one the configuration set', () => {
    const vars = { AZURE_STORAGE_CONNECTION_STRING: 'ours', AzureWebJobsStorage: 'ours' };
    const inherited = { AZURE_STORAGE_CONNECTION_STRING: 'UseDevelopmentStorage=true', PATH: '/usr/bin' };
    const copied: Record<string, unknown> = { type: 'debugpy', env: { ...inherited, AzureWebJobsStorage: 'mine' } };
    assert.deepEqual(addEnvironment(copied, vars, new Set(), 'linux', inherited), ['AZURE_STORAGE_CONNECTION_STRING']);
    assert.deepEqual(copied.env, { AZURE_STORAGE_CONNECTION_STRING: 'ours', PATH: '/usr/bin', AzureWebJobsStorage: 'mine' });
    // Its envFile's value stays, whatever it equals.
    const fromFile: Record<string, unknown> = { env: { ...inherited } };
    assert.deepEqual(addEnvironment(fromFile, vars, new Set(['AZURE_STORAGE_CONNECTION_STRING']), 'linux', inherited), ['AzureWebJobsStorage']);
    assert.equal((fromFile.env as Record<string, string>).AZURE_STORAGE_CONNECTION_STRING, 'UseDevelopmentStorage=true');
    // On Windows, in another case: one entry, ours.
    const windows: Record<string, unknown> = { env: { azure_storage_connection_string: 'UseDevelopmentStorage=true' } };
    assert.deepEqual(addEnvironment(windows, { AZURE_STORAGE_CONNECTION_STRING: 'ours' }, new Set(), 'win32', { azure_storage_connection_string: 'UseDevelopmentStorage=true' }), ['AZURE_STORAGE_CONNECTION_STRING']);
    assert.deepEqual(windows.env, { AZURE_STORAGE_CONNECTION_STRING: 'ours' });
  });

  it('an identity-based connection the configuration sets (env or envFile: AzureWebJobsStorage__accountName) keeps AzureWebJobsStorage out', () => {
    const vars = { AzureWebJobsStorage: 'ours', AZURE_STORAGE_CONNECTION_STRING: 'ours' };
    const inEnv: Record<string, unknown> = { env: { AzureWebJobsStorage__accountName: 'prodaccount' } };
    assert.deepEqual(addEnvironment(inEnv, vars, new Set(), 'linux'), ['AZURE_STORAGE_CONNECTION_STRING']);
    assert.deepEqual(inEnv.env, { AzureWebJobsStorage__accountName: 'prodaccount', AZURE_STORAGE_CONNECTION_STRING: 'ours' });
    const inFile: Record<string, unknown> = {};
    assert.deepEqual(addEnvironment(inFile, vars, new Set(['AZUREWEBJOBSSTORAGE__BLOBSERVICEURI']), 'linux'), ['AZURE_STORAGE_CONNECTION_STRING']);
    // Unset in env (null): no connection there.
    const unset: Record<string, unknown> = { env: { AzureWebJobsStorage__accountName: null } };
    assert.deepEqual(addEnvironment(unset, vars, new Set(), 'linux'), ['AzureWebJobsStorage', 'AZURE_STORAGE_CONNECTION_STRING']);
  });

  it('on Windows a variable the configuration sets in another case is its own: AZUREWEBJOBSSTORAGE keeps AzureWebJobsStorage out', () => {
    const vars = { AzureWebJobsStorage: 'ours', AZURE_STORAGE_CONNECTION_STRING: 'ours' };
    const windows: Record<string, unknown> = { env: { AZUREWEBJOBSSTORAGE: 'cloud' } };
    assert.deepEqual(addEnvironment(windows, vars, new Set(['azure_storage_connection_string']), 'win32'), []);
    assert.deepEqual(windows.env, { AZUREWEBJOBSSTORAGE: 'cloud' }, 'one entry, the user\'s');
    // Elsewhere names are case-sensitive, except AzureWebJobsStorage, which the Functions host reads
    // in any case (.NET configuration): a second entry of ours would make the winner the order's.
    const linux: Record<string, unknown> = { env: { AZUREWEBJOBSSTORAGE: 'cloud' } };
    assert.deepEqual(addEnvironment(linux, vars, new Set(['azure_storage_connection_string']), 'linux'), ['AZURE_STORAGE_CONNECTION_STRING']);
    assert.deepEqual(linux.env, { AZUREWEBJOBSSTORAGE: 'cloud', AZURE_STORAGE_CONNECTION_STRING: 'ours' });
    assert.equal(hasVariableName(['azurewebjobsstorage'], 'AzureWebJobsStorage', 'darwin'), true);
    assert.equal(hasVariableName(['Path'], 'PATH', 'win32'), true);
    assert.equal(hasVariableName(['Path'], 'PATH', 'darwin'), false);
  });
});
