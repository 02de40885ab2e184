/**
 * core/taskEnvironment.ts: the connection variables that tasks written in tasks.json, terminal
 * profiles and JavaScript Debug Terminal launches set themselves, which the terminals' collection
 * leaves to them.
 */
import * as assert from 'node:assert/strict';
import { launchVariables, profileVariables, taskVariables, variablesSet } from '../../../src/core/taskEnvironment';

const NAMES = ['AZURE_STORAGE_CONNECTION_STRING', 'AzureWebJobsStorage'];

describe('core/taskEnvironment', () => {
  it('finds a variable a task sets in options.env, naming the task and its file', () => {
    const file = { version: '2.0.0', tasks: [
      { label: 'build', type: 'shell', command: 'make' },
      { label: 'copy', type: 'shell', command: 'azcopy', options: { env: { AZURE_STORAGE_CONNECTION_STRING: 'cloud' } } },
    ] };
    assert.deepEqual(taskVariables([{ value: file, name: 'tasks.json' }], NAMES, 'linux'), [
      { name: 'AZURE_STORAGE_CONNECTION_STRING', note: '', by: 'the task "copy" (tasks.json)' },
    ]);
  });

  it('counts the file root\'s options.env for every task of it, and the platform\'s options over the general ones', () => {
    const root = { tasks: [{ label: 'a', type: 'shell', command: 'x' }], options: { env: { AzureWebJobsStorage: 'cloud' } } };
    assert.deepEqual(taskVariables([{ value: root, name: 'tasks.json' }], NAMES, 'linux').map((v) => v.by), ['every task of tasks.json']);
    // Root options without a task apply to nothing.
    assert.deepEqual(taskVariables([{ value: { options: root.options }, name: 'tasks.json' }], NAMES, 'linux'), []);
    const perPlatform = { tasks: [{ label: 'up', type: 'process', command: 'x', windows: { options: { env: { azure_storage_connection_string: '' } } } }] };
    assert.deepEqual(taskVariables([{ value: perPlatform, name: 'tasks.json' }], NAMES, 'linux'), [], 'another platform\'s options do not count');
    assert.deepEqual(taskVariables([{ value: perPlatform, name: 'tasks.json' }], NAMES, 'windows').map((v) => v.name), ['AZURE_STORAGE_CONNECTION_STRING'],
      'names compared as Windows does there');
    const rootPlatform = { tasks: [{ type: 'npm', script: 'test' }], osx: { options: { env: { AzureWebJobsStorage: 'x' } } } };
    assert.deepEqual(taskVariables([{ value: rootPlatform, name: 'the user tasks.json' }], NAMES, 'osx'), [
      { name: 'AzureWebJobsStorage', note: '', by: 'every task of the user tasks.json' },
    ]);
  });

  it('takes the first task that sets each variable, across files in the order given, and names an unlabelled task by its type', () => {
    const user = { tasks: [{ type: 'npm', script: 'seed', options: { env: { AzureWebJobsStorage: 'a' } } }] };
    const workspace = { tasks: [{ taskName: 'old', type: 'shell', options: { env: { AzureWebJobsStorage: 'b', AZURE_STORAGE_CONNECTION_STRING: 'c' } } }] };
    assert.deepEqual(taskVariables([{ value: user, name: 'the user tasks.json' }, { value: workspace, name: 'tasks.json of api' }], NAMES, 'linux').map((v) => `${v.name}: ${v.by}`), [
      'AzureWebJobsStorage: the task "npm: seed" (the user tasks.json)',
      'AZURE_STORAGE_CONNECTION_STRING: the task "old" (tasks.json of api)',
    ]);
  });

  it('counts an identity-based AzureWebJobsStorage set to a string, not one set to null', () => {
    const file = (value: unknown): unknown => ({ tasks: [{ label: 'func', type: 'shell', options: { env: { AzureWebJobsStorage__accountName: value } } }] });
    assert.deepEqual(taskVariables([{ value: file('prod'), name: 'tasks.json' }], NAMES, 'linux'), [
      { name: 'AzureWebJobsStorage', note: ' (AzureWebJobsStorage__accountName: an identity-based connection)', by: 'the task "func" (tasks.json)' },
    ]);
    assert.deepEqual(taskVariables([{ value: file(null), name: 'tasks.json' }], NAMES, 'linux'), []);
  });

  it('ignores what is not a tasks.json\'s shape', () => {
    for (const value of [undefined, null, 'tasks', [], { tasks: 'x' }, { tasks: [null, 3, { options: 'env' }, { options: { env: [] } }] }]) {
      assert.deepEqual(taskVariables([{ value, name: 'tasks.json' }], NAMES, 'linux'), [], JSON.stringify(value));
    }
  });

  it('reads a variable named with any value, "" and null included, exactly elsewhere than on Windows (AzureWebJobsStorage, which the Functions host reads in any case, everywhere in any case)', () => {
    assert.deepEqual(variablesSet({ AZURE_STORAGE_CONNECTION_STRING: null, AzureWebJobsStorage: '' }, NAMES, 'linux').map((v) => v.name), NAMES);
    assert.deepEqual(variablesSet({ azure_storage_connection_string: 'x' }, NAMES, 'linux'), []);
    assert.deepEqual(variablesSet({ azure_storage_connection_string: 'x' }, NAMES, 'windows').map((v) => v.name), ['AZURE_STORAGE_CONNECTION_STRING']);
    assert.deepEqual(variablesSet({ AZUREWEBJOBSSTORAGE: 'x' }, NAMES, 'linux').map((v) => v.name), ['AzureWebJobsStorage']);
    assert.deepEqual(variablesSet({ AZUREWEBJOBSSTORAGE: 'x' }, NAMES, 'windows').map((v) => v.name), ['AzureWebJobsStorage']);
  });

  it('finds a variable a terminal profile sets in its env, naming the profile; built-in profiles and hidden ones (null) set none', () => {
    const profiles = {
      bash: { path: 'bash', icon: 'terminal-bash' },
      tmux: null,
      cloud: { path: 'bash', env: { AzureWebJobsStorage__accountName: 'prod', OTHER: '1' } },
      prod: { path: 'bash', env: { AZURE_STORAGE_CONNECTION_STRING: 'cloud' } },
    };
    assert.deepEqual(profileVariables(profiles, NAMES, 'linux', 'terminal.integrated.profiles.linux'), [
      { name: 'AzureWebJobsStorage', note: ' (AzureWebJobsStorage__accountName: an identity-based connection)', by: 'the terminal profile "cloud" (terminal.integrated.profiles.linux)' },
      { name: 'AZURE_STORAGE_CONNECTION_STRING', note: '', by: 'the terminal profile "prod" (terminal.integrated.profiles.linux)' },
    ]);
    for (const value of [undefined, null, 'x', [], { p: { env: 'x' } }]) assert.deepEqual(profileVariables(value, NAMES, 'linux', 's'), [], JSON.stringify(value));
  });

  it('finds a variable a node-terminal launch sets in its env, and not one another launch type sets (its env reaches its process directly)', () => {
    const launch = { version: '0.2.0', configurations: [
      { type: 'node', request: 'launch', name: 'app', env: { AZURE_STORAGE_CONNECTION_STRING: 'cloud' } },
      { type: 'node-terminal', request: 'launch', name: 'npm start', command: 'npm start', env: { AzureWebJobsStorage: 'cloud' } },
      null,
    ] };
    assert.deepEqual(launchVariables([{ value: launch, name: 'launch.json' }], NAMES, 'linux'), [
      { name: 'AzureWebJobsStorage', note: '', by: 'the launch configuration "npm start" (launch.json)' },
    ]);
    for (const value of [undefined, null, { configurations: 'x' }]) assert.deepEqual(launchVariables([{ value, name: 'launch.json' }], NAMES, 'linux'), []);
  });
});
