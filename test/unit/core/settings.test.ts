/**
 * settings.ts: raw `azurite.*` values → EmulatorOptions, errors a person can act on, location resolution.
 * Paths are POSIX literals (the unit tier runs on Linux/macOS).
 */
import * as assert from 'node:assert/strict';
import {
  DEFAULT_LOCATION_FOLDER,
  defaultLocation,
  errorsFor,
  parseSettings,
  resolveLocation,
  type LocationContext,
  type RawSettings,
  type SettingError,
} from '../../../src/core/settings';

const WS = '/home/dev/project';
const HOME = '/home/dev';
const GLOBAL = '/home/dev/.vscode-server/data/User/globalStorage/storage-emulators';

const withFolder: LocationContext = { workspaceFolder: WS, homeDir: HOME, globalStoragePath: GLOBAL, rootHasAzuriteData: false };
const withAzuriteRoot: LocationContext = { ...withFolder, rootHasAzuriteData: true };
const noFolder: LocationContext = { workspaceFolder: undefined, homeDir: HOME, globalStoragePath: GLOBAL, rootHasAzuriteData: false };

const PORT_FIX = (def: number): string => `use a whole number from 0 to 65535 (0 picks a free port; Azurite's default is ${def}).`;
const HOST_FIX = 'use a host name or IP address to listen on, such as "127.0.0.1" (this machine only) or "0.0.0.0" (all interfaces).';
const LIMIT_FIX = "use a number of MB greater than 0 (1 MB = 1024 × 1024 bytes), or remove it for Azurite's default of 50% of total memory.";
const LOCATION_FIX = 'use a folder path: absolute, relative to the workspace folder, or with ${workspaceFolder} or ~.';
const BOOL_FIX = 'use true or false.';

/** Parses `raw` and asserts exactly one error, returning it. */
function onlyError(raw: RawSettings, ctx: LocationContext = withFolder): SettingError {
  const { errors } = parseSettings(raw, ctx);
  assert.equal(errors.length, 1, `expected one error, got ${JSON.stringify(errors)}`);
  return errors[0]!;
}

describe('core/settings', () => {
  describe('parseSettings defaults', () => {
    it('gives Azurite defaults for empty settings, with no errors', () => {
      const { options, errors } = parseSettings({}, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual(options, {
        services: {
          blob: { host: '127.0.0.1', port: 10000 },
          queue: { host: '127.0.0.1', port: 10001 },
          table: { host: '127.0.0.1', port: 10002 },
        },
        location: '/home/dev/project/.azurite',
        inMemoryPersistence: false,
        extentMemoryLimitBytes: undefined,
        loose: false,
        skipApiVersionCheck: false,
        debug: false,
        silent: false,
      });
    });

    it('treats null values (as VS Code returns for unset keys) like unset', () => {
      const raw: RawSettings = {
        blobHost: null, blobPort: null, queuePort: null, tablePort: null, inMemoryPersistence: null,
        extentMemoryLimit: null, location: null, loose: null, skipApiVersionCheck: null, debug: null, silent: null,
      };
      const { options, errors } = parseSettings(raw, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual(options, parseSettings({}, withFolder).options);
    });

    it('takes valid values', () => {
      const { options, errors } = parseSettings(
        {
          blobHost: '0.0.0.0', blobPort: 0, queueHost: '  localhost  ', queuePort: 65535, tableHost: '::1', tablePort: 20002,
          inMemoryPersistence: true, extentMemoryLimit: 1, location: '/var/azurite',
          loose: true, skipApiVersionCheck: true, debug: true, silent: true,
        },
        withFolder,
      );
      assert.deepEqual(errors, []);
      assert.deepEqual(options, {
        services: {
          blob: { host: '0.0.0.0', port: 0 },
          queue: { host: 'localhost', port: 65535 },
          table: { host: '::1', port: 20002 },
        },
        location: '/var/azurite',
        inMemoryPersistence: true,
        extentMemoryLimitBytes: 1048576,
        loose: true,
        skipApiVersionCheck: true,
        debug: true,
        silent: true,
      });
    });

    it('converts extentMemoryLimit MB to bytes: 1 → 1048576, 0.5 → 524288, 2048 → 2147483648', () => {
      assert.equal(parseSettings({ extentMemoryLimit: 1 }, withFolder).options.extentMemoryLimitBytes, 1048576);
      assert.equal(parseSettings({ extentMemoryLimit: 0.5 }, withFolder).options.extentMemoryLimitBytes, 524288);
      assert.equal(parseSettings({ extentMemoryLimit: 2048 }, withFolder).options.extentMemoryLimitBytes, 2147483648);
    });

    it('accepts the smallest limit that is still one whole byte', () => {
      const { options, errors } = parseSettings({ extentMemoryLimit: 1 / 1048576 }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.extentMemoryLimitBytes, 1);
    });
  });

  describe('parseSettings ports', () => {
    const bad: Array<[unknown, string]> = [
      [70000, '70000'],
      [65536, '65536'],
      [-1, '-1'],
      [1.5, '1.5'],
      ['abc', '"abc"'],
      ['10000', '"10000"'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [true, 'true'],
    ];
    for (const [value, shown] of bad) {
      it(`rejects blobPort ${shown}, naming the setting, value and fix, and blocks only blob`, () => {
        const e = onlyError({ blobPort: value });
        assert.equal(e.key, 'azurite.blobPort');
        assert.equal(e.value, value);
        assert.equal(e.message, `azurite.blobPort is ${shown}; ${PORT_FIX(10000)}`);
        assert.deepEqual(e.services, ['blob']);
      });
    }

    it('falls back to the default port for the bad service only', () => {
      const { options } = parseSettings({ blobPort: 70000, queuePort: 20001 }, withFolder);
      assert.equal(options.services.blob.port, 10000);
      assert.equal(options.services.queue.port, 20001);
      assert.equal(options.services.table.port, 10002);
    });

    it("names each service's own key and default in the message", () => {
      const { errors } = parseSettings({ queuePort: -1, tablePort: 1.5 }, withFolder);
      assert.deepEqual(
        errors.map((e) => [e.key, e.message, e.services]),
        [
          ['azurite.queuePort', `azurite.queuePort is -1; ${PORT_FIX(10001)}`, ['queue']],
          ['azurite.tablePort', `azurite.tablePort is 1.5; ${PORT_FIX(10002)}`, ['table']],
        ],
      );
    });

    it('accepts the boundaries 0 and 65535', () => {
      const { options, errors } = parseSettings({ blobPort: 0, tablePort: 65535 }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.services.blob.port, 0);
      assert.equal(options.services.table.port, 65535);
    });
  });

  describe('parseSettings hosts', () => {
    const bad: Array<[unknown, string]> = [
      ['', '""'],
      ['   ', '"   "'],
      ['local host', '"local host"'],
      [127001, '127001'],
      [{ host: 'x' }, '{"host":"x"}'],
    ];
    for (const [value, shown] of bad) {
      it(`rejects blobHost ${shown}, naming the setting, value and fix, and blocks only blob`, () => {
        const e = onlyError({ blobHost: value });
        assert.equal(e.key, 'azurite.blobHost');
        assert.deepEqual(e.value, value);
        assert.equal(e.message, `azurite.blobHost is ${shown}; ${HOST_FIX}`);
        assert.deepEqual(e.services, ['blob']);
      });
    }

    it('falls back to 127.0.0.1 for a bad host', () => {
      assert.equal(parseSettings({ tableHost: '' }, withFolder).options.services.table.host, '127.0.0.1');
    });
  });

  describe('parseSettings extentMemoryLimit', () => {
    const bad: Array<[unknown, string]> = [
      [-1, '-1'],
      [0, '0'],
      ['abc', '"abc"'],
      ['1', '"1"'],
      [1e-7, '1e-7'], // 0.1048576 bytes: truncates to 0
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
    ];
    for (const [value, shown] of bad) {
      it(`rejects ${shown}: names setting, value and fix; blocks blob+queue in memory, nothing on disk`, () => {
        const inMemory = onlyError({ extentMemoryLimit: value, inMemoryPersistence: true });
        assert.equal(inMemory.key, 'azurite.extentMemoryLimit');
        assert.equal(inMemory.value, value);
        assert.equal(inMemory.message, `azurite.extentMemoryLimit is ${shown}; ${LIMIT_FIX}`);
        assert.deepEqual(inMemory.services, ['blob', 'queue']);

        const onDisk = onlyError({ extentMemoryLimit: value });
        assert.equal(onDisk.message, `azurite.extentMemoryLimit is ${shown}; ${LIMIT_FIX}`);
        assert.deepEqual(onDisk.services, []);
      });
    }

    it("falls back to Azurite's default (undefined) for a bad limit", () => {
      assert.equal(parseSettings({ extentMemoryLimit: 0, inMemoryPersistence: true }, withFolder).options.extentMemoryLimitBytes, undefined);
    });
  });

  describe('parseSettings booleans', () => {
    it('rejects inMemoryPersistence "true" (a string): blocks every service, falls back to false', () => {
      const { options, errors } = parseSettings({ inMemoryPersistence: 'true' }, withFolder);
      assert.equal(options.inMemoryPersistence, false);
      assert.deepEqual(errors, [
        {
          key: 'azurite.inMemoryPersistence',
          value: 'true',
          message: `azurite.inMemoryPersistence is "true"; ${BOOL_FIX}`,
          services: ['blob', 'queue', 'table'],
        },
      ]);
    });

    it('rejects loose and skipApiVersionCheck as strings or numbers, blocking every service', () => {
      const { options, errors } = parseSettings({ loose: 'false', skipApiVersionCheck: 1 }, withFolder);
      assert.equal(options.loose, false);
      assert.equal(options.skipApiVersionCheck, false);
      assert.deepEqual(
        errors.map((e) => [e.key, e.message, e.services]),
        [
          ['azurite.loose', `azurite.loose is "false"; ${BOOL_FIX}`, ['blob', 'queue', 'table']],
          ['azurite.skipApiVersionCheck', `azurite.skipApiVersionCheck is 1; ${BOOL_FIX}`, ['blob', 'queue', 'table']],
        ],
      );
    });

    it('rejects debug and silent as strings without blocking any service', () => {
      const { options, errors } = parseSettings({ debug: 'yes', silent: 'true' }, withFolder);
      assert.equal(options.debug, false);
      assert.equal(options.silent, false);
      assert.deepEqual(
        errors.map((e) => [e.key, e.message, e.services]),
        [
          ['azurite.debug', `azurite.debug is "yes"; ${BOOL_FIX}`, []],
          ['azurite.silent', `azurite.silent is "true"; ${BOOL_FIX}`, []],
        ],
      );
    });
  });

  describe('parseSettings location', () => {
    it('rejects a location that is not a string: blocks every service on disk, none in memory', () => {
      const onDisk = onlyError({ location: 42 });
      assert.equal(onDisk.key, 'azurite.location');
      assert.equal(onDisk.value, 42);
      assert.equal(onDisk.message, `azurite.location is 42; ${LOCATION_FIX}`);
      assert.deepEqual(onDisk.services, ['blob', 'queue', 'table']);

      const inMemory = onlyError({ location: ['/a'], inMemoryPersistence: true });
      assert.equal(inMemory.message, `azurite.location is ["/a"]; ${LOCATION_FIX}`);
      assert.deepEqual(inMemory.services, []);
    });

    it('rejects ${workspaceFolder} with no folder open, naming setting, value and fix; falls back to global storage', () => {
      const { options, errors } = parseSettings({ location: '${workspaceFolder}/data' }, noFolder);
      assert.equal(options.location, GLOBAL);
      assert.deepEqual(errors, [
        {
          key: 'azurite.location',
          value: '${workspaceFolder}/data',
          message:
            'azurite.location is "${workspaceFolder}/data"; it uses ${workspaceFolder} but no folder is open; open a folder or use an absolute path.',
          services: ['blob', 'queue', 'table'],
        },
      ]);
      const inMemory = parseSettings({ location: '${workspaceFolder}/data', inMemoryPersistence: true }, noFolder);
      assert.deepEqual(inMemory.errors.map((e) => e.services), [[]]);
    });

    it('falls back to the default location when location is invalid', () => {
      assert.equal(parseSettings({ location: 42 }, withFolder).options.location, '/home/dev/project/.azurite');
    });

    it('treats "" as unset', () => {
      const { options, errors } = parseSettings({ location: '' }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.location, '/home/dev/project/.azurite');
    });

    it('treats a whitespace-only location like unset (<ws>/.azurite), not as the workspace root', () => {
      const { options, errors } = parseSettings({ location: '   ' }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.location, '/home/dev/project/.azurite');
    });

    it('resolves a set location through resolveLocation', () => {
      assert.equal(parseSettings({ location: 'data' }, withFolder).options.location, '/home/dev/project/data');
      assert.equal(parseSettings({ location: '~/azurite' }, noFolder).options.location, '/home/dev/azurite');
    });

    it('reports errors in a fixed order: hosts/ports per service, then inMemory, limit, location, other booleans', () => {
      const { errors } = parseSettings(
        { silent: 'x', location: 1, extentMemoryLimit: 0, inMemoryPersistence: 'x', tablePort: -1, blobHost: '', blobPort: -1, loose: 'x' },
        withFolder,
      );
      assert.deepEqual(errors.map((e) => e.key), [
        'azurite.blobHost',
        'azurite.blobPort',
        'azurite.tablePort',
        'azurite.inMemoryPersistence',
        'azurite.extentMemoryLimit',
        'azurite.location',
        'azurite.loose',
        'azurite.silent',
      ]);
    });
  });

  describe('errorsFor', () => {
    it('returns only the errors that block the given service', () => {
      const { errors } = parseSettings(
        { blobPort: 70000, queueHost: '', extentMemoryLimit: -1, inMemoryPersistence: true, debug: 'x' },
        withFolder,
      );
      assert.deepEqual(errors.map((e) => e.key), ['azurite.blobPort', 'azurite.queueHost', 'azurite.extentMemoryLimit', 'azurite.debug']);
      assert.deepEqual(errorsFor(errors, 'blob').map((e) => e.key), ['azurite.blobPort', 'azurite.extentMemoryLimit']);
      assert.deepEqual(errorsFor(errors, 'queue').map((e) => e.key), ['azurite.queueHost', 'azurite.extentMemoryLimit']);
      assert.deepEqual(errorsFor(errors, 'table').map((e) => e.key), []);
    });

    it('blocks every service for an unusable disk location', () => {
      const { errors } = parseSettings({ location: false }, withFolder);
      for (const kind of ['blob', 'queue', 'table'] as const) {
        assert.deepEqual(errorsFor(errors, kind).map((e) => e.key), ['azurite.location']);
      }
    });

    it('returns [] for no errors', () => {
      assert.deepEqual(errorsFor([], 'blob'), []);
    });
  });

  describe('defaultLocation', () => {
    it('is <ws>/.azurite when a folder is open', () => {
      assert.equal(DEFAULT_LOCATION_FOLDER, '.azurite');
      assert.equal(defaultLocation(withFolder), '/home/dev/project/.azurite');
    });

    it('is the workspace root when it already holds Azurite data', () => {
      assert.equal(defaultLocation(withAzuriteRoot), '/home/dev/project');
      assert.equal(parseSettings({}, withAzuriteRoot).options.location, '/home/dev/project');
    });

    it('is global storage with no folder open (even if rootHasAzuriteData were set)', () => {
      assert.equal(defaultLocation(noFolder), GLOBAL);
      assert.equal(defaultLocation({ ...noFolder, rootHasAzuriteData: true }), GLOBAL);
      assert.equal(parseSettings({}, noFolder).options.location, GLOBAL);
    });
  });

  describe('resolveLocation', () => {
    it('takes a relative path from the workspace folder', () => {
      assert.equal(resolveLocation('data', withFolder), '/home/dev/project/data');
      assert.equal(resolveLocation('./data/azurite', withFolder), '/home/dev/project/data/azurite');
      assert.equal(resolveLocation('../shared', withFolder), '/home/dev/shared');
    });

    it('takes a relative path from global storage when no folder is open', () => {
      assert.equal(resolveLocation('data', noFolder), `${GLOBAL}/data`);
    });

    it('ignores rootHasAzuriteData for a set location', () => {
      assert.equal(resolveLocation('data', withAzuriteRoot), '/home/dev/project/data');
    });

    it('expands ${workspaceFolder}, every occurrence', () => {
      assert.equal(resolveLocation('${workspaceFolder}/data', withFolder), '/home/dev/project/data');
      assert.equal(resolveLocation('${workspaceFolder}', withFolder), '/home/dev/project');
      assert.equal(resolveLocation('${workspaceFolder}/a/${workspaceFolder}', withFolder), '/home/dev/project/a/home/dev/project');
    });

    it('returns a fix for ${workspaceFolder} with no folder open', () => {
      assert.deepEqual(resolveLocation('${workspaceFolder}/data', noFolder), {
        fix: 'it uses ${workspaceFolder} but no folder is open; open a folder or use an absolute path.',
      });
    });

    it('expands a leading ~ to the home folder', () => {
      assert.equal(resolveLocation('~/x', withFolder), '/home/dev/x');
      assert.equal(resolveLocation('~', withFolder), '/home/dev');
      assert.equal(resolveLocation('~/x', noFolder), '/home/dev/x');
    });

    it('does not expand ~ in the middle or ~user', () => {
      assert.equal(resolveLocation('a/~/x', withFolder), '/home/dev/project/a/~/x');
      assert.equal(resolveLocation('~other/x', withFolder), '/home/dev/project/~other/x');
    });

    it('keeps an absolute path', () => {
      assert.equal(resolveLocation('/var/lib/azurite', withFolder), '/var/lib/azurite');
      assert.equal(resolveLocation('/var/lib/azurite', noFolder), '/var/lib/azurite');
    });

    it('normalizes a/../b, ./ and repeated slashes; trims surrounding spaces', () => {
      assert.equal(resolveLocation('a/../b', withFolder), '/home/dev/project/b');
      assert.equal(resolveLocation('/var//lib/./x/../azurite', withFolder), '/var/lib/azurite');
      assert.equal(resolveLocation('  /var/azurite  ', withFolder), '/var/azurite');
    });
  });
});
