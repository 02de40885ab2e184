/**
 * settings.ts: raw `azurite.*` values → EmulatorOptions, errors a person can act on, location resolution.
 * Paths are POSIX literals (the unit tier runs on Linux/macOS).
 */
import * as assert from 'node:assert/strict';
import {
  azuriteExtensionLocation,
  certificatePath,
  DEFAULT_LOCATION_FOLDER,
  defaultLocation,
  errorsFor,
  locationNeedsFolder,
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
/** A multi-root workspace: "web" (chosen for data) and "api"; `${env:…}` reads ENV, not this process's environment. */
const WEB = '/home/dev/repos/web';
const API = '/home/dev/repos/api';
const ENV = { AZURITE_DATA: '/srv/azurite', RELATIVE: 'data/azurite', TEMPLATE: '${userHome}', TILDE: '~/x' };
const multiRoot: LocationContext = {
  workspaceFolder: WEB, workspaceFolders: [{ name: 'web', path: WEB }, { name: 'api', path: API }], homeDir: HOME, globalStoragePath: GLOBAL, rootHasAzuriteData: false, env: ENV,
};

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
          blob: { host: '127.0.0.1', port: 10000, keepAliveSec: 5 },
          queue: { host: '127.0.0.1', port: 10001, keepAliveSec: 5 },
          table: { host: '127.0.0.1', port: 10002, keepAliveSec: 5 },
        },
        location: '/home/dev/project/.azurite',
        inMemoryPersistence: false,
        extentMemoryLimitBytes: undefined,
        loose: false,
        apiVersionCheck: 'acceptNewer',
        debug: false,
        silent: false,
        https: undefined,
        oauth: undefined,
        disableProductStyleUrl: false,
        engineHeapLimitMb: 2048,
      });
    });

    it('treats null values (as VS Code returns for unset keys) like unset', () => {
      const raw: RawSettings = {
        blobHost: null, blobPort: null, queuePort: null, tablePort: null, inMemoryPersistence: null,
        extentMemoryLimit: null, location: null, loose: null, skipApiVersionCheck: null, debug: null, silent: null,
        cert: null, key: null, pwd: null, oauth: null, disableProductStyleUrl: null,
        blobKeepAliveTimeout: null, queueKeepAliveTimeout: null, tableKeepAliveTimeout: null,
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
          blobKeepAliveTimeout: 0, queueKeepAliveTimeout: 2.5, tableKeepAliveTimeout: 600,
          cert: '${workspaceFolder}/certs/localhost.pem', key: '~/keys/localhost-key.pem', oauth: 'basic', disableProductStyleUrl: true,
        },
        withFolder,
      );
      assert.deepEqual(errors, []);
      assert.deepEqual(options, {
        services: {
          blob: { host: '0.0.0.0', port: 0, keepAliveSec: 0 },
          queue: { host: 'localhost', port: 65535, keepAliveSec: 2.5 },
          table: { host: '::1', port: 20002, keepAliveSec: 600 },
        },
        location: '/var/azurite',
        inMemoryPersistence: true,
        extentMemoryLimitBytes: 1048576,
        loose: true,
        apiVersionCheck: 'off',
        debug: true,
        silent: true,
        https: { cert: '/home/dev/project/certs/localhost.pem', key: '/home/dev/keys/localhost-key.pem' },
        oauth: 'basic',
        disableProductStyleUrl: true,
        engineHeapLimitMb: 2048,
      });
    });

    it('converts extentMemoryLimit MB to bytes: 1 → 1048576, 0.5 → 524288, 2048 → 2147483648', () => {
      assert.equal(parseSettings({ extentMemoryLimit: 1 }, withFolder).options.extentMemoryLimitBytes, 1048576);
      assert.equal(parseSettings({ extentMemoryLimit: 0.5 }, withFolder).options.extentMemoryLimitBytes, 524288);
      assert.equal(parseSettings({ extentMemoryLimit: 2048 }, withFolder).options.extentMemoryLimitBytes, 2147483648);
      // Written as a string, as a port may be: no error that would stop Blob and Queue.
      const asString = parseSettings({ extentMemoryLimit: ' 512 ', inMemoryPersistence: true }, withFolder);
      assert.deepEqual(asString.errors, []);
      assert.equal(asString.options.extentMemoryLimitBytes, 512 * 1048576);
      assert.equal(parseSettings({ extentMemoryLimit: '512 MB', inMemoryPersistence: true }, withFolder).errors[0]?.key, 'azurite.extentMemoryLimit');
      // Empty, as a cleared field leaves it: unset (the default limit), not an error that stops Blob and Queue.
      for (const empty of ['', '  ']) {
        const cleared = parseSettings({ extentMemoryLimit: empty, inMemoryPersistence: true }, withFolder);
        assert.deepEqual(cleared.errors, [], JSON.stringify(empty));
        assert.equal(cleared.options.extentMemoryLimitBytes, undefined);
      }
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
      ['70000', '"70000"'],
      ['1e4', '"1e4"'],
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

    it('accepts a port written as a string of digits, as the Azurite extension does', () => {
      const { options, errors } = parseSettings({ blobPort: '20000', queuePort: ' 20001 ' }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.services.blob.port, 20000);
      assert.equal(options.services.queue.port, 20001);
    });

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

    it('rejects an IPv6 host with a zone, which no URL can carry, saying what to use', () => {
      for (const value of ['fe80::1%eth0', '[fe80::1%25eth0]']) {
        const e = onlyError({ blobHost: value });
        assert.equal(e.key, 'azurite.blobHost');
        assert.match(e.message, /^azurite\.blobHost is ".*"; an IPv6 address with a zone \(the part from "%"\) cannot be written in a URL, so no client could reach it through a connection string\. Use "::" \(every address\) or "::1" \(this machine\), or an address without a zone\.$/);
        assert.deepEqual(e.services, ['blob']);
      }
    });

    it('falls back to 127.0.0.1 for a bad host', () => {
      assert.equal(parseSettings({ tableHost: '' }, withFolder).options.services.table.host, '127.0.0.1');
    });
  });

  describe('parseSettings extentMemoryLimit', () => {
    const bad: Array<[unknown, string]> = [
      [-1, '-1'],
      [0, '0'],
      ['abc', '"abc"'],
      ['1 MB', '"1 MB"'],
      ['0', '"0"'],
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
      assert.equal(options.apiVersionCheck, 'acceptNewer');
      assert.deepEqual(
        errors.map((e) => [e.key, e.message, e.services]),
        [
          ['azurite.loose', `azurite.loose is "false"; ${BOOL_FIX}`, ['blob', 'queue', 'table']],
          ['azurite.skipApiVersionCheck', `azurite.skipApiVersionCheck is 1; ${BOOL_FIX}`, ['blob', 'queue', 'table']],
        ],
      );
    });

    it('reads azurite.apiVersionCheck: acceptNewer by default, strict and off as given', () => {
      assert.equal(parseSettings({}, withFolder).options.apiVersionCheck, 'acceptNewer');
      assert.equal(parseSettings({ apiVersionCheck: 'strict' }, withFolder).options.apiVersionCheck, 'strict');
      assert.equal(parseSettings({ apiVersionCheck: 'off' }, withFolder).options.apiVersionCheck, 'off');
      assert.equal(parseSettings({ apiVersionCheck: 'acceptNewer', skipApiVersionCheck: false }, withFolder).options.apiVersionCheck, 'acceptNewer');
    });

    it('lets azurite.skipApiVersionCheck: true win over azurite.apiVersionCheck (other extensions write it)', () => {
      const { options, errors } = parseSettings({ apiVersionCheck: 'strict', skipApiVersionCheck: true }, withFolder);
      assert.equal(options.apiVersionCheck, 'off');
      assert.deepEqual(errors, []);
    });

    it('refuses an unknown azurite.apiVersionCheck, keeps the default in force and blocks no service', () => {
      const { options, errors } = parseSettings({ apiVersionCheck: 'lenient' }, withFolder);
      assert.equal(options.apiVersionCheck, 'acceptNewer');
      assert.deepEqual(errors.map((e) => [e.key, e.message, e.services]), [
        ['azurite.apiVersionCheck', 'azurite.apiVersionCheck is "lenient"; use "acceptNewer", "strict", "off" ("acceptNewer" is the default and is in force until then).', []],
      ]);
      // With azurite.skipApiVersionCheck on, the message names the policy really in force.
      const skipping = parseSettings({ apiVersionCheck: 'lenient', skipApiVersionCheck: true }, withFolder);
      assert.equal(skipping.options.apiVersionCheck, 'off');
      assert.deepEqual(skipping.errors.map((e) => e.message), ['azurite.apiVersionCheck is "lenient"; use "acceptNewer", "strict", "off" ("off" is in force, as azurite.skipApiVersionCheck is on).']);
    });

    it('reads azurite.engine.heapLimit in MB (2048 by default), refusing what is not 128–65536 without blocking any service', () => {
      assert.equal(parseSettings({}, withFolder).options.engineHeapLimitMb, 2048);
      assert.equal(parseSettings({ 'engine.heapLimit': 512 }, withFolder).options.engineHeapLimitMb, 512);
      for (const bad of [64, 1.5, '1024', 100000]) {
        const { options, errors } = parseSettings({ 'engine.heapLimit': bad }, withFolder);
        assert.equal(options.engineHeapLimitMb, 2048);
        assert.deepEqual(errors.map((e) => [e.key, e.services]), [['azurite.engine.heapLimit', []]]);
        assert.match(errors[0]!.message, /use a whole number of MB from 128 to 65536/);
      }
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

  describe('parseSettings keep-alive timeouts', () => {
    const KEEP_ALIVE_FIX = "use a number of seconds from 0 to 2147483 (Azurite's default is 5; 0 keeps Node's default of 5).";
    const bad: Array<[unknown, string]> = [
      [-1, '-1'],
      ['-5', '"-5"'],
      ['abc', '"abc"'],
      [true, 'true'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [2147484, '2147484'], // past Node's largest timer: would close every idle connection after 1 ms
    ];
    for (const [value, shown] of bad) {
      it(`rejects blobKeepAliveTimeout ${shown}: names setting, value and fix, blocks only blob, falls back to 5`, () => {
        const { options, errors } = parseSettings({ blobKeepAliveTimeout: value }, withFolder);
        assert.deepEqual(errors, [
          { key: 'azurite.blobKeepAliveTimeout', value, message: `azurite.blobKeepAliveTimeout is ${shown}; ${KEEP_ALIVE_FIX}`, services: ['blob'] },
        ]);
        assert.equal(options.services.blob.keepAliveSec, 5);
      });
    }

    it('accepts seconds written as a string of digits, as the Azurite extension does', () => {
      const { options, errors } = parseSettings({ blobKeepAliveTimeout: '7', queueKeepAliveTimeout: ' 2.5 ' }, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual([options.services.blob.keepAliveSec, options.services.queue.keepAliveSec], [7, 2.5]);
    });

    it('keeps each service to its own key: a bad queue value blocks only queue', () => {
      const { options, errors } = parseSettings({ queueKeepAliveTimeout: -5, tableKeepAliveTimeout: 30 }, withFolder);
      assert.deepEqual(errors.map((e) => [e.key, e.services]), [['azurite.queueKeepAliveTimeout', ['queue']]]);
      assert.deepEqual([options.services.blob.keepAliveSec, options.services.queue.keepAliveSec, options.services.table.keepAliveSec], [5, 5, 30]);
    });

    it('accepts the boundaries 0 and 2147483, and fractions of a second', () => {
      const { options, errors } = parseSettings({ blobKeepAliveTimeout: 0, queueKeepAliveTimeout: 2147483, tableKeepAliveTimeout: 0.5 }, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual([options.services.blob.keepAliveSec, options.services.queue.keepAliveSec, options.services.table.keepAliveSec], [0, 2147483, 0.5]);
    });
  });

  describe('parseSettings HTTPS (cert, key, pwd)', () => {
    const ALL_KINDS = ['blob', 'queue', 'table'];
    const PEM_NEEDS_KEY = 'a PEM certificate needs its private key: set azurite.key to the PEM key file (HTTPS stays off until then), or use a PFX file and set azurite.pwd to its password.';
    const PFX_NEEDS_PWD = 'a PFX certificate needs its password: run "Azurite: Set Certificate Password" (kept in Secret Storage) or set azurite.pwd (Azurite cannot open a PFX without one; HTTPS stays off until then; a PFX exported with an empty password needs exporting again with one), or use a PEM certificate and set azurite.key to its private key file.';

    it('cert + key is PEM; paths resolve like azurite.location (relative to the workspace folder, ${workspaceFolder}, ~)', () => {
      assert.deepEqual(parseSettings({ cert: 'certs/localhost.pem', key: '~/keys/localhost-key.pem' }, withFolder), {
        options: { ...parseSettings({}, withFolder).options, https: { cert: '/home/dev/project/certs/localhost.pem', key: '/home/dev/keys/localhost-key.pem' } },
        errors: [],
      });
      assert.deepEqual(parseSettings({ cert: '${workspaceFolder}/a.crt', key: '/etc/ssl/a.key' }, withFolder).options.https, { cert: '/home/dev/project/a.crt', key: '/etc/ssl/a.key' });
    });

    it('cert + pwd is PFX; the password is kept exactly (not trimmed)', () => {
      const { options, errors } = parseSettings({ cert: '/certs/dev.pfx', pwd: ' pass word ' }, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual(options.https, { cert: '/certs/dev.pfx', pwd: ' pass word ' });
    });

    it('takes a password written as a number as its digits, as the Azurite extension does (toString)', () => {
      const { options, errors } = parseSettings({ cert: '/certs/dev.pfx', pwd: 123456 }, withFolder);
      assert.deepEqual(errors, []);
      assert.deepEqual(options.https, { cert: '/certs/dev.pfx', pwd: '123456' });
    });

    it('cert + key + pwd is PEM, as in Azurite (the password is not used)', () => {
      assert.deepEqual(parseSettings({ cert: '/c.pem', key: '/k.pem', pwd: 'x' }, withFolder).options.https, { cert: '/c.pem', key: '/k.pem' });
    });

    it('treats empty and whitespace-only values (Azurite\'s defaults are "") as unset: HTTP, no errors', () => {
      const { options, errors } = parseSettings({ cert: '', key: '  ', pwd: '', oauth: '' }, withFolder);
      assert.deepEqual(errors, []);
      assert.equal(options.https, undefined);
      assert.equal(options.oauth, undefined);
    });

    it('rejects a key without a cert, blocking every service', () => {
      const { options, errors } = parseSettings({ key: 'localhost-key.pem' }, withFolder);
      assert.equal(options.https, undefined);
      assert.deepEqual(errors, [
        {
          key: 'azurite.key',
          value: 'localhost-key.pem',
          message: 'azurite.key is "localhost-key.pem"; it needs azurite.cert: set azurite.cert to the PEM certificate this key belongs to, or clear azurite.key.',
          services: ALL_KINDS,
        },
      ]);
    });

    it('rejects a password without a cert, never showing the password', () => {
      const { errors } = parseSettings({ pwd: 'hunter2' }, withFolder);
      assert.deepEqual(errors, [
        {
          key: 'azurite.pwd',
          value: '(hidden)',
          message: 'azurite.pwd is set (value hidden); it needs azurite.cert: set azurite.cert to the PFX file this password opens, or clear azurite.pwd.',
          services: ALL_KINDS,
        },
      ]);
      assert.ok(!JSON.stringify(errors).includes('hunter2'));
    });

    for (const cert of ['localhost.pem', 'localhost.crt', 'LOCALHOST.CER']) {
      it(`rejects ${cert} without azurite.key: a PEM certificate needs its key`, () => {
        const e = onlyError({ cert });
        assert.equal(e.key, 'azurite.cert');
        assert.equal(e.message, `azurite.cert is ${JSON.stringify(cert)}; ${PEM_NEEDS_KEY}`);
        assert.deepEqual(e.services, ALL_KINDS);
      });
    }

    for (const cert of ['localhost.pfx', 'dev.p12', 'certificate']) {
      it(`rejects ${cert} without azurite.pwd: a PFX needs its password`, () => {
        const { options, errors } = parseSettings({ cert }, withFolder);
        assert.equal(options.https, undefined);
        assert.deepEqual(errors, [{ key: 'azurite.cert', value: cert, message: `azurite.cert is ${JSON.stringify(cert)}; ${PFX_NEEDS_PWD}`, services: ALL_KINDS }]);
      });
    }

    it('rejects a .pem certificate with a password but no key (a password only opens a PFX)', () => {
      const e = onlyError({ cert: 'localhost.pem', pwd: 'secret' });
      assert.equal(e.message, 'azurite.cert is "localhost.pem"; a PEM certificate needs its private key: set azurite.key to the PEM key file (azurite.pwd only opens PFX files), or point azurite.cert at the PFX file.');
      assert.ok(!e.message.includes('secret'));
    });

    it('rejects a cert or key that is not a string, and a password that is neither a string nor a number', () => {
      const { errors } = parseSettings({ cert: 42, key: ['k.pem'], pwd: ['1234'] }, withFolder);
      assert.deepEqual(errors.map((e) => [e.key, e.message, e.services]), [
        ['azurite.cert', 'azurite.cert is 42; use the path of a PEM certificate or a PFX file: absolute, relative to the workspace folder, or with ${workspaceFolder} or ~.', ALL_KINDS],
        ['azurite.key', 'azurite.key is ["k.pem"]; use the path of the PEM private key of azurite.cert: absolute, relative to the workspace folder, or with ${workspaceFolder} or ~.', ALL_KINDS],
        ['azurite.pwd', 'azurite.pwd is set (value hidden) but not a string; write the PFX password as a string, in quotes.', ALL_KINDS],
      ]);
    });

    it('rejects ${workspaceFolder} in a cert path with no folder open', () => {
      const e = onlyError({ cert: '${workspaceFolder}/dev.pfx', pwd: 'p' }, noFolder);
      assert.equal(e.message, 'azurite.cert is "${workspaceFolder}/dev.pfx"; it uses ${workspaceFolder} but no folder is open; open a folder or use an absolute path.');
    });

    it('rejects a relative cert or key path with no folder open (not a file under global storage)', () => {
      const e = onlyError({ cert: 'certs/dev.pfx', pwd: 'p' }, noFolder);
      assert.equal(e.message, 'azurite.cert is "certs/dev.pfx"; it is a relative path, which is taken from the workspace folder, but no folder is open; open a folder or use an absolute path (or ~).');
      assert.deepEqual(parseSettings({ cert: '~/certs/dev.pfx', pwd: 'p' }, noFolder).errors, [], 'under the home folder: absolute');
    });
  });

  describe('parseSettings oauth and disableProductStyleUrl', () => {
    const ALL_KINDS = ['blob', 'queue', 'table'];
    const pem = { cert: '/c.pem', key: '/k.pem' };

    for (const value of ['basic', 'BASIC', ' Basic ']) {
      it(`accepts oauth ${JSON.stringify(value)} with HTTPS (any case, as Azurite)`, () => {
        const { options, errors } = parseSettings({ ...pem, oauth: value }, withFolder);
        assert.deepEqual(errors, []);
        assert.equal(options.oauth, 'basic');
      });
    }

    for (const [value, shown] of [['full', '"full"'], [true, 'true'], [1, '1']] as Array<[unknown, string]>) {
      it(`warns about oauth ${shown} and, as the Azurite extension, leaves OAuth off: only "basic" exists; blocks no service`, () => {
        const { options, errors } = parseSettings({ ...pem, oauth: value }, withFolder);
        assert.equal(options.oauth, undefined);
        assert.deepEqual(errors, [
          {
            key: 'azurite.oauth',
            value,
            message: `azurite.oauth is ${shown}; Azurite knows only "basic", so OAuth stays off (shared key and SAS only). Use "basic" to also accept OAuth bearer tokens, or leave it empty.`,
            services: [],
          },
        ]);
      });
    }

    it('rejects oauth without HTTPS, saying to set azurite.cert', () => {
      const { options, errors } = parseSettings({ oauth: 'basic' }, withFolder);
      assert.equal(options.oauth, undefined);
      assert.deepEqual(errors, [
        {
          key: 'azurite.oauth',
          value: 'basic',
          message: 'azurite.oauth is "basic"; OAuth needs HTTPS: set azurite.cert (with azurite.key for PEM, or azurite.pwd for PFX), or clear azurite.oauth.',
          services: ALL_KINDS,
        },
      ]);
    });

    it('reports only the certificate when oauth is set with an incomplete certificate', () => {
      assert.deepEqual(parseSettings({ cert: 'dev.pfx', oauth: 'basic' }, withFolder).errors.map((e) => e.key), ['azurite.cert']);
    });

    it('warns, blocking nothing, about a dotted host name Azurite would read an account from while disableProductStyleUrl is off', () => {
      const { errors } = parseSettings({ blobHost: 'mybox.lan', queueHost: '192.168.1.5', tableHost: 'host.docker.internal' }, withFolder);
      assert.deepEqual(errors.map((e) => [e.key, e.services]), [['azurite.blobHost', []]]);
      assert.match(errors[0]!.message, /^azurite\.blobHost is "mybox\.lan"; Azurite reads a dotted host name as a product-style URL and takes the account from its first label \("mybox"\).*Turn on azurite\.disableProductStyleUrl/);
      assert.deepEqual(parseSettings({ blobHost: 'mybox.lan', disableProductStyleUrl: true }, withFolder).errors, []);
      for (const host of ['localhost', '127.0.0.1', '0.0.0.0', '::1', '::ffff:127.0.0.1', '.lan', 'azurite']) {
        assert.deepEqual(parseSettings({ blobHost: host }, withFolder).errors, [], host);
      }
    });

    it('takes disableProductStyleUrl as a boolean and rejects a string, blocking every service', () => {
      assert.equal(parseSettings({ disableProductStyleUrl: true }, withFolder).options.disableProductStyleUrl, true);
      const e = onlyError({ disableProductStyleUrl: 'true' });
      assert.equal(e.message, `azurite.disableProductStyleUrl is "true"; ${BOOL_FIX}`);
      assert.deepEqual(e.services, ALL_KINDS);
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
      // Once .azurite/ holds data, Azurite files appearing in the root later (npx azurite there) do not switch it.
      assert.equal(defaultLocation({ ...withAzuriteRoot, defaultFolderHasAzuriteData: true }), '/home/dev/project/.azurite');
    });

    it('is global storage with no folder open (even if rootHasAzuriteData were set)', () => {
      assert.equal(defaultLocation(noFolder), GLOBAL);
      assert.equal(defaultLocation({ ...noFolder, rootHasAzuriteData: true }), GLOBAL);
      assert.equal(parseSettings({}, noFolder).options.location, GLOBAL);
    });
  });

  describe('azuriteExtensionLocation', () => {
    it('is where the Azurite extension takes ~ and ${workspaceFolder} literally, when that is not our folder', () => {
      assert.equal(azuriteExtensionLocation('~/azurite', withFolder), `${WS}/~/azurite`);
      assert.equal(azuriteExtensionLocation('${workspaceFolder}/data', withFolder), `${WS}/\${workspaceFolder}/data`);
      assert.equal(azuriteExtensionLocation('/srv/${workspaceFolder}', withFolder), '/srv/${workspaceFolder}');
      // The same folder either way, or nothing it would resolve.
      for (const v of ['data', '/var/azurite', './x']) assert.equal(azuriteExtensionLocation(v, withFolder), undefined, v);
      assert.equal(azuriteExtensionLocation('~/azurite', noFolder), undefined);
    });
  });

  describe('locationNeedsFolder', () => {
    it('is true for what resolveLocation takes from the workspace folder', () => {
      for (const v of ['data', './data', '../shared', '${workspaceFolder}/data', '/abs/${workspaceFolder}', ' data ']) assert.equal(locationNeedsFolder(v, multiRoot), true, v);
      for (const v of ['/var/azurite', '~', '~/azurite', '~\\azurite', ' /var/azurite ']) assert.equal(locationNeedsFolder(v, multiRoot), false, v);
    });

    it('is false for a folder named by ${workspaceFolder:name}, ${userHome} or an absolute ${env:NAME}; true for ${workspaceFolderBasename} and a relative result', () => {
      for (const v of ['${workspaceFolder:api}/.azurite', '${userHome}/azurite', '${env:AZURITE_DATA}', '${env:AZURITE_DATA}/${env:UNSET}x', '${env:UNSET}data']) assert.equal(locationNeedsFolder(v, multiRoot), false, v);
      for (const v of ['${workspaceFolderBasename}', '/srv/${workspaceFolderBasename}', '${env:RELATIVE}']) assert.equal(locationNeedsFolder(v, multiRoot), true, v);
    });

    it('is false for a value no folder could resolve (an unknown variable or folder name): its error says so without the folder question', () => {
      for (const v of ['${config:azurite.dir}/data', 'data/${workspaceFolder:docs}', '${command:pick}']) assert.equal(locationNeedsFolder(v, multiRoot), false, v);
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

    it('refuses a relative path with no folder open for a file the user made (relativeNeedsFolder)', () => {
      assert.deepEqual(resolveLocation('seed', { ...noFolder, relativeNeedsFolder: true }), { fix: 'it is a relative path, which is taken from the workspace folder, but no folder is open; open a folder or use an absolute path (or ~).' });
      assert.equal(resolveLocation('seed', { ...withFolder, relativeNeedsFolder: true }), '/home/dev/project/seed');
      assert.equal(resolveLocation('~/seed', { ...noFolder, relativeNeedsFolder: true }), `${noFolder.homeDir}/seed`);
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

  describe("VS Code's variables in path settings", () => {
    const SUPPORTED = '${workspaceFolder}, ${workspaceFolder:<folder name>}, ${workspaceFolderBasename}, ${userHome}, ${env:<NAME>}, a leading ~, or an absolute path.';

    it('expands ${workspaceFolder:name} to the workspace folder of that name, not the one chosen for data', () => {
      assert.equal(resolveLocation('${workspaceFolder:api}/.azurite', multiRoot), `${API}/.azurite`);
      assert.equal(resolveLocation('${workspaceFolder:web}', multiRoot), WEB);
      assert.equal(resolveLocation('${workspaceFolder:api}/../web/${workspaceFolder}', multiRoot), `${WEB}${WEB}`);
      // Two folders of one name: the last, as VS Code's resolver takes.
      const twice: LocationContext = { ...multiRoot, workspaceFolders: [...multiRoot.workspaceFolders!, { name: 'api', path: '/other/api' }] };
      assert.equal(resolveLocation('${workspaceFolder:api}', twice), '/other/api');
      assert.deepEqual(parseSettings({ location: '${workspaceFolder:api}/.azurite' }, multiRoot), {
        options: { ...parseSettings({}, multiRoot).options, location: `${API}/.azurite` },
        errors: [],
      });
    });

    it('expands ${userHome} to the home folder, with or without a folder open', () => {
      assert.equal(resolveLocation('${userHome}/azurite', withFolder), '/home/dev/azurite');
      assert.equal(resolveLocation('${userHome}', noFolder), HOME);
      assert.equal(parseSettings({ location: '${userHome}/.azurite-data' }, noFolder).options.location, '/home/dev/.azurite-data');
    });

    it('expands ${env:NAME} from the environment given, takes a relative result from the workspace folder, and refuses an unset one (not the workspace folder itself)', () => {
      assert.equal(resolveLocation('${env:AZURITE_DATA}/blob', multiRoot), '/srv/azurite/blob');
      assert.equal(resolveLocation('${env:RELATIVE}', multiRoot), `${WEB}/data/azurite`);
      assert.deepEqual(resolveLocation('${env:UNSET}', multiRoot), { fix: 'it uses ${env:UNSET}, but UNSET is not set in the environment VS Code was started with; set it there (and restart VS Code), or use an absolute path.' });
      assert.match(parseSettings({ location: 'data-${env:UNSET}' }, multiRoot).errors[0]?.message ?? '', /UNSET is not set/);
      assert.equal(parseSettings({ location: '${env:AZURITE_DATA}' }, multiRoot).options.location, '/srv/azurite');
    });

    it('reads ${env:NAME} from process.env when no environment is given', () => {
      const name = 'STORAGE_EMULATORS_SETTINGS_TEST_DIR';
      process.env[name] = '/tmp/from-process-env';
      try {
        assert.equal(resolveLocation(`\${env:${name}}/data`, withFolder), '/tmp/from-process-env/data');
      } finally {
        delete process.env[name];
      }
      assert.ok(typeof resolveLocation(`x\${env:${name}}`, withFolder) !== 'string', 'unset once it is gone from process.env');
    });

    it('does not expand what a variable expands to again, nor take a ~ from it', () => {
      assert.equal(resolveLocation('${env:TEMPLATE}', multiRoot), `${WEB}/\${userHome}`);
      assert.equal(resolveLocation('${env:TILDE}', multiRoot), `${WEB}/~/x`);
    });

    it('expands ${workspaceFolderBasename} to the last segment of ${workspaceFolder}; with no folder open it is an error', () => {
      assert.equal(resolveLocation('/srv/azurite/${workspaceFolderBasename}', withFolder), '/srv/azurite/project');
      assert.equal(resolveLocation('/srv/${workspaceFolderBasename}', multiRoot), '/srv/web');
      const e = onlyError({ location: '/srv/${workspaceFolderBasename}' }, noFolder);
      assert.equal(e.message, 'azurite.location is "/srv/${workspaceFolderBasename}"; it uses ${workspaceFolderBasename} but no folder is open; open a folder or use an absolute path.');
      assert.deepEqual(e.services, ['blob', 'queue', 'table']);
    });

    it('refuses a ${workspaceFolder:name} no workspace folder has, naming the folders there are; falls back to the default location', () => {
      const { options, errors } = parseSettings({ location: '${workspaceFolder:docs}/.azurite' }, multiRoot);
      assert.equal(options.location, `${WEB}/.azurite`);
      assert.deepEqual(errors, [{
        key: 'azurite.location',
        value: '${workspaceFolder:docs}/.azurite',
        message: 'azurite.location is "${workspaceFolder:docs}/.azurite"; it uses ${workspaceFolder:docs} but no workspace folder is named "docs" (the workspace folders are "web", "api"); use a folder\'s name as the Explorer shows it, or an absolute path.',
        services: ['blob', 'queue', 'table'],
      }]);
      // Names are matched exactly, as VS Code does.
      assert.equal(onlyError({ location: '${workspaceFolder:API}' }, multiRoot).key, 'azurite.location');
      assert.equal(onlyError({ cert: '${workspaceFolder:api}/dev.pfx', pwd: 'p' }, noFolder).message,
        'azurite.cert is "${workspaceFolder:api}/dev.pfx"; it uses ${workspaceFolder:api} but no workspace folder is named "api" (no folder is open); use a folder\'s name as the Explorer shows it, or an absolute path.');
    });

    for (const variable of ['${config:azurite.dataDir}', '${command:pickFolder}', '${input:dir}', '${env}', '${env:}', '${workspaceFolder:}', '${workspaceFolderBasename:api}', '${pathSeparator}', '${cwd}']) {
      it(`refuses ${variable}, naming the setting, the value and the variables supported; blocks every service on disk`, () => {
        const value = `${variable}/data`;
        const e = onlyError({ location: value }, multiRoot);
        assert.deepEqual(e, {
          key: 'azurite.location',
          value,
          message: `azurite.location is ${JSON.stringify(value)}; it uses ${variable}, which is not expanded here; use ${SUPPORTED}`,
          services: ['blob', 'queue', 'table'],
        });
        assert.deepEqual(onlyError({ location: value, inMemoryPersistence: true }, multiRoot).services, []);
      });
    }

    it('expands the same variables in azurite.cert and azurite.key, and refuses the same unknown ones', () => {
      assert.deepEqual(parseSettings({ cert: '${workspaceFolder:api}/certs/dev.pem', key: '${userHome}/keys/${env:RELATIVE}.key' }, multiRoot).options.https,
        { cert: `${API}/certs/dev.pem`, key: '/home/dev/keys/data/azurite.key' });
      const { errors } = parseSettings({ cert: '${config:cert}', key: '${workspaceFolder:docs}/k.pem' }, multiRoot);
      assert.deepEqual(errors.map((e) => [e.key, e.services]), [['azurite.cert', ['blob', 'queue', 'table']], ['azurite.key', ['blob', 'queue', 'table']]]);
      assert.equal(errors[0]!.message, `azurite.cert is "\${config:cert}"; it uses \${config:cert}, which is not expanded here; use ${SUPPORTED}`);
    });

    it('names the first variable that cannot be expanded', () => {
      assert.deepEqual(resolveLocation('${workspaceFolder:api}/${config:a}/${command:b}', multiRoot), {
        fix: `it uses \${config:a}, which is not expanded here; use ${SUPPORTED}`,
      });
    });

    it('counts any variable as one the Azurite extension takes literally', () => {
      assert.equal(azuriteExtensionLocation('${userHome}/azurite', withFolder), `${WS}/\${userHome}/azurite`);
      assert.equal(azuriteExtensionLocation('${workspaceFolder:api}/.azurite', multiRoot), `${WEB}/\${workspaceFolder:api}/.azurite`);
      assert.equal(azuriteExtensionLocation('${config:x}', multiRoot), `${WEB}/\${config:x}`);
    });
  });
});

describe('core/settings: settings that contradict each other', () => {
  const PAIRS = [['blob', 'queue'], ['blob', 'table'], ['queue', 'table']] as const;
  const name = (k: string): string => k.charAt(0).toUpperCase() + k.slice(1);

  for (const [a, b] of PAIRS) {
    it(`refuses ${a} and ${b} on one host:port, naming both settings, blocking both`, () => {
      const { errors } = parseSettings({ [`${a}Port`]: 20000, [`${b}Port`]: 20000 }, withFolder);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      const e = errors[0]!;
      assert.equal(e.key, `azurite.${b}Port`);
      assert.deepEqual(e.services, [a, b]);
      assert.ok(e.message.startsWith(`azurite.${b}Port is 20000, the same as azurite.${a}Port; ${name(a)} and ${name(b)} cannot both listen on 127.0.0.1:20000. Set azurite.${b}Port to `), e.message);
    });

    it(`refuses ${a} and ${b} on one port when either host is a wildcard (0.0.0.0, ::)`, () => {
      for (const [ha, hb] of [['0.0.0.0', '127.0.0.1'], ['127.0.0.1', '::'], ['192.168.1.5', '0.0.0.0']]) {
        const { errors } = parseSettings({ [`${a}Port`]: 20000, [`${b}Port`]: 20000, [`${a}Host`]: ha, [`${b}Host`]: hb }, withFolder);
        assert.equal(errors.length, 1, `${ha}/${hb}: ${JSON.stringify(errors)}`);
        assert.match(errors[0]!.message, new RegExp(`^azurite\\.${b}Port is 20000, the same as azurite\\.${a}Port; .*every address`));
      }
    });

    it(`accepts ${a} and ${b} on one port on two different addresses, and both on port 0`, () => {
      assert.deepEqual(parseSettings({ [`${a}Port`]: 20000, [`${b}Port`]: 20000, [`${a}Host`]: '127.0.0.1', [`${b}Host`]: '127.0.0.2' }, withFolder).errors, []);
      assert.deepEqual(parseSettings({ [`${a}Port`]: 0, [`${b}Port`]: 0 }, withFolder).errors, []);
    });
  }

  it('blames the setting the user set, not the default it collides with, and suggests its own default', () => {
    const e = onlyError({ tablePort: 10000 });
    assert.equal(e.key, 'azurite.tablePort');
    assert.equal(e.message, "azurite.tablePort is 10000, the same as azurite.blobPort (its default); Blob and Table cannot both listen on 127.0.0.1:10000. Set azurite.tablePort to 10002 (Azurite's default for Table), another free port, or 0 to pick a free one.");
    const q = onlyError({ blobPort: 10001 });
    assert.equal(q.key, 'azurite.blobPort');
    assert.match(q.message, /^azurite\.blobPort is 10001, the same as azurite\.queuePort \(its default\); Blob and Queue /);
  });

  it('never suggests a port another service is configured to use', () => {
    const e = onlyError({ blobPort: 10002, tablePort: 10000, queuePort: 10002 });
    assert.equal(e.key, 'azurite.queuePort');
    // Queue's default (10001) is no other service's setting here; in the last case Table's (10002) is Blob's.
    assert.match(e.message, /Set azurite\.queuePort to 10001 \(Azurite's default for Queue\)/);
    const f = onlyError({ blobPort: 10001, queuePort: 10003, tablePort: 10003 });
    assert.match(f.message, /Set azurite\.tablePort to 10002 \(Azurite's default for Table\)/);
    const g = onlyError({ blobPort: 10002, queuePort: 10005, tablePort: 10005 });
    assert.ok(g.message.endsWith('Set azurite.tablePort to another free port, or 0 to pick a free one.'), g.message);
  });

  it('reports all three on one port as two errors, and leaves an invalid port to its own error', () => {
    const { errors } = parseSettings({ blobPort: 20000, queuePort: 20000, tablePort: 20000 }, withFolder);
    assert.deepEqual(errors.map((e) => e.key), ['azurite.queuePort', 'azurite.tablePort', 'azurite.tablePort']);
    assert.deepEqual(errorsFor(errors, 'blob').length, 2);
    const invalid = parseSettings({ blobPort: 70000, queuePort: 10000 }, withFolder).errors;
    assert.deepEqual(invalid.map((e) => e.key), ['azurite.blobPort']);
  });
});

describe('core/settings: the certificate password from Secret Storage', () => {
  const stored = { pwdFor: () => 's3cret' };

  it('asks for the password of the certificate file at its resolved path, only for a PFX', () => {
    const asked: string[] = [];
    const pwdFor = (cert: string): string | undefined => { asked.push(cert); return cert === `${WS}/certs/dev.pfx` ? 'mine' : undefined; };
    assert.equal(parseSettings({ cert: 'certs/dev.pfx' }, withFolder, { pwdFor }).options.https?.pwd, 'mine');
    assert.equal(parseSettings({ cert: '/elsewhere/dev.pfx' }, withFolder, { pwdFor }).options.https, undefined);
    parseSettings({ cert: '/c/c.pem', key: '/c/k.pem' }, withFolder, { pwdFor });
    assert.deepEqual(asked, [`${WS}/certs/dev.pfx`, '/elsewhere/dev.pfx']);
    assert.equal(certificatePath('certs/dev.pfx', withFolder), asked[0]);
    assert.equal(certificatePath('  ', withFolder), undefined);
    assert.equal(certificatePath('certs/dev.pfx', { ...withFolder, workspaceFolder: undefined }), undefined, 'relative with no folder: the settings report it');
  });

  it('uses the stored password for a PFX when azurite.pwd is unset, and says where it came from', () => {
    const { options, errors } = parseSettings({ cert: '/c/dev.pfx' }, withFolder, stored);
    assert.deepEqual(errors, []);
    assert.deepEqual(options.https, { cert: '/c/dev.pfx', pwd: 's3cret', pwdFromSecretStorage: true });
  });

  it('lets azurite.pwd win over the stored password', () => {
    assert.deepEqual(parseSettings({ cert: '/c/dev.pfx', pwd: 'in-settings' }, withFolder, stored).options.https, { cert: '/c/dev.pfx', pwd: 'in-settings' });
  });

  it('ignores a stored password without a certificate, and with a PEM key', () => {
    assert.deepEqual(parseSettings({}, withFolder, stored), parseSettings({}, withFolder));
    assert.deepEqual(parseSettings({ cert: '/c/c.pem', key: '/c/k.pem' }, withFolder, stored).options.https, { cert: '/c/c.pem', key: '/c/k.pem' });
  });

  it('never puts the stored password in a message', () => {
    const { errors } = parseSettings({ cert: '/c/dev.pem' }, withFolder, stored);
    assert.equal(errors.length, 1);
    assert.ok(!errors[0]!.message.includes('s3cret'));
    assert.match(errors[0]!.message, /the password in Secret Storage only opens PFX files/);
  });
});
