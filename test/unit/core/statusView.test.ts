/**
 * statusView.ts: state → text, tooltip, command, severity for each service item and the memory meter.
 */
import * as assert from 'node:assert/strict';
import type { ServiceState } from '../../../src/core/lifecycle';
import type { MemoryReport } from '../../../src/core/memory';
import { escapeMarkdown, memoryView, serviceView, type ServiceViewInput } from '../../../src/core/statusView';

const LOCATION = '/home/dev/project/.azurite';
const LOCATION_MD = '/home/dev/project/\\.azurite';

function input(state: ServiceState, extra: Partial<ServiceViewInput> = {}): ServiceViewInput {
  return { kind: 'blob', state, configuredPort: 10000, inMemory: false, location: LOCATION, ...extra };
}

const running: ServiceState = { status: 'running', endpoint: { host: '127.0.0.1', port: 10000, url: 'http://127.0.0.1:10000' } };

function memReport(usedBytes: number, limitBytes: number): MemoryReport {
  return { blobBytes: usedBytes, queueBytes: 0, usedBytes, limitBytes, isDefaultLimit: false };
}

describe('core/statusView', () => {
  describe('escapeMarkdown', () => {
    it('backslash-escapes Markdown punctuation', () => {
      assert.equal(escapeMarkdown('a.b-c (d) [e] *f* _g_ `h` #i +j !k |l <m> {n} \\o'), 'a\\.b\\-c \\(d\\) \\[e\\] \\*f\\* \\_g\\_ \\`h\\` \\#i \\+j \\!k \\|l \\<m\\> \\{n\\} \\\\o');
    });

    it('escapes an entity and a strike-through, which the renderer would decode or draw', () => {
      assert.equal(escapeMarkdown('R&amp;D ~~old~~.txt'), 'R\\&amp;D \\~\\~old\\~\\~\\.txt');
    });

    it('leaves letters, digits, spaces, colons and slashes alone', () => {
      assert.equal(escapeMarkdown('http://host:10000/devstoreaccount1 ok'), 'http://host:10000/devstoreaccount1 ok');
    });
  });

  describe('serviceView closed', () => {
    it('offers start, names the service, shows the configured port and data folder', () => {
      const v = serviceView(input({ status: 'closed' }));
      assert.equal(v.text, '$(debug-start) Blob');
      assert.equal(v.command, 'azurite.start_blob');
      assert.equal(v.severity, 'normal');
      assert.deepEqual(v.linkCommands, ['azurite.start_blob', 'azurite.clean_blob']);
      assert.equal(
        v.tooltip,
        [
          '**Azurite Blob service** — stopped (port 10000)',
          `Data: ${LOCATION_MD}`,
          '[Start](command:azurite.start_blob) · [Clean](command:azurite.clean_blob)',
          '_Click to start._',
        ].join('\n\n'),
      );
    });

    it('says when another Azurite serves it on its port (and not over a setting error)', () => {
      const v = serviceView(input({ status: 'closed' }, { servedElsewhere: true }));
      assert.equal(v.text, '$(debug-start) Blob');
      assert.ok(v.tooltip.startsWith('**Azurite Blob service** — stopped here, served by another Azurite (port 10000)\n\nAnother Azurite (another window\'s, the CLI, a container) answers on this port: terminals and debug sessions get its address. Starting it here needs another port.\n\n'), v.tooltip);
      const failed = serviceView(input({ status: 'closed' }, { servedElsewhere: true, settingErrors: ['azurite.blobPort must be a number'] }));
      assert.ok(!failed.tooltip.includes('served by another Azurite'), failed.tooltip);
    });

    it('uses the kind for name and commands (queue, table)', () => {
      const q = serviceView(input({ status: 'closed' }, { kind: 'queue', configuredPort: 10001 }));
      assert.equal(q.text, '$(debug-start) Queue');
      assert.equal(q.command, 'azurite.start_queue');
      assert.ok(q.tooltip.startsWith('**Azurite Queue service** — stopped (port 10001)'));
      // azurite.queuePort 0: a free port is found at each start.
      assert.ok(serviceView(input({ status: 'closed' }, { kind: 'queue', configuredPort: 0 })).tooltip.startsWith('**Azurite Queue service** — stopped (any free port)'));
      const t = serviceView(input({ status: 'closed' }, { kind: 'table', configuredPort: 10002 }));
      assert.equal(t.text, '$(debug-start) Table');
      assert.equal(t.command, 'azurite.start_table');
      assert.deepEqual(t.linkCommands, ['azurite.start_table', 'azurite.clean_table']);
    });

    it('says when settings changed since a running service started (a restart put off)', () => {
      const pending = serviceView(input(running, { restartPending: true })).tooltip;
      assert.match(pending, /Settings changed since it started; they apply when it restarts: stop and start it/);
      assert.doesNotMatch(serviceView(input(running)).tooltip, /Settings changed/);
    });

    it('says data is in memory when inMemory', () => {
      const v = serviceView(input({ status: 'closed' }, { inMemory: true }));
      assert.ok(v.tooltip.includes('\n\nData: in memory (gone when the service stops)\n\n'), v.tooltip);
      assert.ok(!v.tooltip.includes(LOCATION_MD));
    });
  });

  describe('serviceView closed with an error', () => {
    const error = 'Blob service could not start: port 10000 on 127.0.0.1 is already in use. Set azurite.blobPort to a free port (0 picks one).';
    const errorMd =
      'Blob service could not start: port 10000 on 127\\.0\\.0\\.1 is already in use\\. Set azurite\\.blobPort to a free port \\(0 picks one\\)\\.';

    it('is an error item that still offers start, and shows the escaped error and Open Settings', () => {
      const v = serviceView(input({ status: 'closed', error }));
      assert.equal(v.text, '$(error) Blob');
      assert.equal(v.command, 'azurite.start_blob');
      assert.equal(v.severity, 'error');
      assert.deepEqual(v.linkCommands, ['azurite.start_blob', 'azurite.clean_blob', 'workbench.action.openSettings']);
      assert.equal(
        v.tooltip,
        [
          '**Azurite Blob service** — not running (port 10000)',
          `$(error) ${errorMd}`,
          `Data: ${LOCATION_MD}`,
          '[Start](command:azurite.start_blob) · [Clean](command:azurite.clean_blob) · [Open Settings](command:workbench.action.openSettings?%5B%22azurite%22%5D)',
          '_Click to start._',
        ].join('\n\n'),
      );
    });

    it('lists setting errors before the last failure, each escaped', () => {
      const v = serviceView(input({ status: 'closed', error: 'boom!' }, { settingErrors: ['azurite.blobPort is 70000; use 0-65535.'] }));
      assert.equal(v.severity, 'error');
      assert.ok(
        v.tooltip.includes('\n\n$(error) azurite\\.blobPort is 70000; use 0\\-65535\\.\n\n$(error) boom\\!\n\n'),
        v.tooltip,
      );
    });

    it('is an error item for setting errors alone', () => {
      const v = serviceView(input({ status: 'closed' }, { settingErrors: ['azurite.blobHost is ""'] }));
      assert.equal(v.text, '$(error) Blob');
      assert.equal(v.severity, 'error');
      assert.equal(v.command, 'azurite.start_blob');
      assert.ok(v.tooltip.startsWith('**Azurite Blob service** — not running (port 10000)'));
    });

    it('cannot be turned into a link by the error text', () => {
      const v = serviceView(input({ status: 'closed', error: '[click](command:evil)' }));
      assert.ok(v.tooltip.includes('$(error) \\[click\\]\\(command:evil\\)'), v.tooltip);
      assert.ok(!v.tooltip.includes('[click](command:evil)'));
    });
  });

  describe('serviceView running', () => {
    it('shows :port, offers close, and links Stop/Clean/Copy connection string', () => {
      const v = serviceView(input(running, { accountUrl: 'http://127.0.0.1:10000/devstoreaccount1' }));
      assert.equal(v.text, '$(check) Blob :10000');
      assert.equal(v.command, 'azurite.close_blob');
      assert.equal(v.severity, 'normal');
      assert.deepEqual(v.linkCommands, ['azurite.close_blob', 'azurite.clean_blob', 'azurite.copyConnectionString']);
      assert.equal(
        v.tooltip,
        [
          '**Azurite Blob service** — running on http://127\\.0\\.0\\.1:10000/devstoreaccount1',
          `Data: ${LOCATION_MD}`,
          '[Stop](command:azurite.close_blob) · [Clean](command:azurite.clean_blob) · [Copy connection string](command:azurite.copyConnectionString)',
          '_Click to stop._',
        ].join('\n\n'),
      );
    });

    it('shows the real port (port setting 0) and falls back to the endpoint url', () => {
      const state: ServiceState = { status: 'running', endpoint: { host: '127.0.0.1', port: 54321, url: 'http://127.0.0.1:54321' } };
      const v = serviceView(input(state, { kind: 'queue', configuredPort: 0, inMemory: true }));
      assert.equal(v.text, '$(check) Queue :54321');
      assert.equal(v.command, 'azurite.close_queue');
      assert.ok(v.tooltip.startsWith('**Azurite Queue service** — running on http://127\\.0\\.0\\.1:54321\n\n'), v.tooltip);
      assert.ok(v.tooltip.includes('\n\nData: in memory (gone when the service stops)\n\n'));
    });
  });

  describe('serviceView: API versions', () => {
    it('names the newest API version the engine knows, running and stopped, and what happens to newer ones', () => {
      const apiVersion = { newest: '2026-06-06', check: 'acceptNewer' } as const;
      for (const state of [running, { status: 'closed' } as ServiceState]) {
        const v = serviceView(input(state, { apiVersion }));
        assert.ok(v.tooltip.includes(`\n\nData: ${LOCATION_MD}\n\nAPI versions: up to 2026\\-06\\-06; newer ones are served as 2026\\-06\\-06\n\n`), v.tooltip);
      }
      const line = (check: 'strict' | 'off') => serviceView(input(running, { apiVersion: { newest: '2026-06-06', check } })).tooltip.split('\n\n')[2];
      assert.equal(line('strict'), escapeMarkdown('API versions: up to 2026-06-06; newer ones get HTTP 400 (azurite.apiVersionCheck: strict)'));
      assert.equal(line('off'), escapeMarkdown('API versions: any (check off); the engine knows up to 2026-06-06'));
    });

    it('leaves the line out when the engine\'s versions are not known', () => {
      assert.ok(!serviceView(input(running)).tooltip.includes('API versions'));
    });
  });

  describe('serviceView while busy', () => {
    const cases: Array<[ServiceState, string]> = [
      [{ status: 'starting' }, 'starting…'],
      [{ status: 'closing' }, 'stopping…'],
      [{ status: 'cleaning' }, 'cleaning…'],
    ];
    for (const [state, verb] of cases) {
      it(`${state.status}: spinner, no command, says "${verb}"`, () => {
        const v = serviceView(input(state));
        assert.equal(v.text, '$(loading~spin) Blob');
        assert.equal(v.command, undefined);
        assert.equal(v.severity, 'normal');
        assert.deepEqual(v.linkCommands, []);
        assert.equal(v.tooltip, `**Azurite Blob service** — ${verb}\n\nData: ${LOCATION_MD}`);
        assert.ok(!v.tooltip.includes('command:'));
      });
    }
  });

  describe('memoryView', () => {
    it('shows "$(database) used / limit" and opens the memory report', () => {
      const v = memoryView(memReport(960000, 1048576));
      assert.equal(v.text, '$(database) 0.9 MB / 1 MB');
      assert.equal(v.command, 'azurite.showMemoryUsage');
      assert.deepEqual(v.linkCommands, ['azurite.showMemoryUsage', 'azurite.reclaimMemory']);
    });

    it('has the escaped report and a Show memory usage link in the tooltip', () => {
      const v = memoryView({ blobBytes: 1024, queueBytes: 512, usedBytes: 1536, limitBytes: 1048576, isDefaultLimit: true });
      assert.equal(
        v.tooltip,
        [
          '**Azurite in-memory storage**',
          'In\\-memory extents: 1\\.5 KB / 1 MB \\(0\\.1%\\)',
          'Blob content: 1 KB \\(1,024 bytes\\)',
          'Queue messages: 512 B \\(512 bytes\\)',
          "Limit: 1 MB \\(1,048,576 bytes\\) — the default, 50% of total memory or of a container's memory limit \\(azurite\\.extentMemoryLimit is unset\\)",
          'Table entities and metadata are kept outside the extent store and are not counted against the limit\\.',
          '[Show memory usage](command:azurite.showMemoryUsage) · [Reclaim memory](command:azurite.reclaimMemory)',
        ].join('\n\n'),
      );
    });

    const severities: Array<[number, number, string]> = [
      [0, 1000, 'normal'],
      [799, 1000, 'normal'], // 79.9%
      [800, 1000, 'warning'], // 80%
      [949, 1000, 'warning'], // 94.9%
      [950, 1000, 'error'], // 95%
      [1000, 1000, 'error'],
      [1500, 1000, 'error'], // over the limit
      [500, 0, 'normal'], // no limit: percentUsed is 0
    ];
    for (const [used, limit, severity] of severities) {
      it(`${used} of ${limit} bytes → ${severity}`, () => {
        assert.equal(memoryView(memReport(used, limit)).severity, severity);
      });
    }
  });
});

describe('core/statusView: exposure and the stopped tooltip', () => {
  const input = (state: ServiceState, extra: Partial<ServiceViewInput> = {}): ServiceViewInput =>
    ({ kind: 'blob', state, configuredPort: 10000, inMemory: true, location: '/x', ...extra });
  const on = (host: string, port = 10000): ServiceState => ({ status: 'running', endpoint: { host, port, url: `http://${host}:${port}` } });

  it('gives each item a label in words for screen readers: state, reason, level and what a press does', () => {
    assert.equal(serviceView(input({ status: 'closed' })).accessibilityLabel, 'Azurite Blob stopped (port 10000). Press to start.');
    assert.equal(serviceView(input({ status: 'closed', error: 'port 10000 on 127.0.0.1 is already in use' })).accessibilityLabel,
      'Azurite Blob not running: port 10000 on 127.0.0.1 is already in use. Press to start.');
    assert.equal(serviceView(input({ status: 'closed' }, { servedElsewhere: true })).accessibilityLabel, 'Azurite Blob stopped here, served by another Azurite (port 10000). Press to start.');
    assert.equal(serviceView(input(running)).accessibilityLabel, 'Azurite Blob running on port 10000. Press to stop.');
    const all = { status: 'running', endpoint: { host: '0.0.0.0', port: 10000, url: 'http://0.0.0.0:10000' } } as const;
    assert.equal(serviceView(input(all, { restartPending: true })).accessibilityLabel,
      'Azurite Blob running on port 10000, reachable from other machines on your network, settings changed since it started. Press to stop.');
    assert.equal(serviceView(input({ status: 'closing' })).accessibilityLabel, 'Azurite Blob stopping');
    // No icon names, no Markdown.
    for (const v of [serviceView(input(running)), serviceView(input({ status: 'starting' })), memoryView(memReport(1, 10))]) assert.doesNotMatch(v.accessibilityLabel, /\$\(|\*\*|\\/);
    assert.equal(memoryView(memReport(500_000, 1_048_576)).accessibilityLabel, 'Azurite in-memory storage: 0.5 MB / 1 MB, 47.7 percent. Press to show memory usage.');
    assert.equal(memoryView(memReport(900_000, 1_048_576)).accessibilityLabel, 'Azurite in-memory storage: 0.9 MB / 1 MB, 85.8 percent — above the 80% warning threshold. Press to show memory usage.');
    assert.match(memoryView(memReport(1_040_000, 1_048_576)).accessibilityLabel, /percent — near the limit\. Press/);
  });

  it('warns on a service bound to all interfaces: severity, who reaches it, the public key, the real URLs', () => {
    const v = serviceView(input(on('0.0.0.0'), { accountUrl: 'http://127.0.0.1:10000/devstoreaccount1', networkAddresses: ['192.168.1.5'] }));
    assert.equal(v.severity, 'warning');
    const lines = v.tooltip.split('\n\n');
    assert.equal(lines[0], '**Azurite Blob service** — running on all interfaces \\(0\\.0\\.0\\.0\\), port 10000');
    assert.equal(lines[1], '$(warning) Reachable from other machines on your network at http://192\\.168\\.1\\.5:10000/devstoreaccount1');
    assert.match(lines[2]!, /^The account key is the public development key .*azurite\\\.blobHost: 127\\\.0\\\.0\\\.1 keeps it on this machine\\\.$/);
    assert.equal(lines[3], 'This machine: http://127\\.0\\.0\\.1:10000/devstoreaccount1');
    assert.ok(!v.tooltip.includes('running on http://127'), 'never says 127.0.0.1 for a service on 0.0.0.0');
  });

  it('warns on a LAN address, naming it; not on any loopback address', () => {
    const lan = serviceView(input(on('10.0.0.2', 10005), { kind: 'queue', accountUrl: 'http://10.0.0.2:10005/devstoreaccount1' }));
    assert.equal(lan.severity, 'warning');
    assert.ok(lan.tooltip.includes('at http://10\\.0\\.0\\.2:10005/devstoreaccount1'), lan.tooltip);
    const severities = ['127.0.0.1', '127.0.0.5', '::1', 'localhost'].map((h) => serviceView(input(on(h))).severity);
    assert.deepEqual(severities, ['normal', 'normal', 'normal', 'normal']);
  });

  it('shows a setting error once, though the refused start kept it as its error', () => {
    const settingErrors = ['azurite.blobPort is 70000; use a whole number from 0 to 65535.'];
    const v = serviceView(input({ status: 'closed', error: settingErrors[0]! }, { settingErrors, configuredPort: undefined }));
    assert.equal(v.tooltip.split('azurite\\.blobPort is 70000').length - 1, 1, v.tooltip);
    const two = ['azurite.blobPort is 70000; …', 'azurite.loose is "yes"; …'];
    const w = serviceView(input({ status: 'closed', error: two.join(' ') }, { settingErrors: two }));
    assert.equal(w.tooltip.split('$(error)').length - 1, 2, w.tooltip);
  });

  it('says the port setting is not valid rather than showing the default, and shows a configured port', () => {
    const bad = serviceView(input({ status: 'closed' }, { kind: 'table', configuredPort: undefined, settingErrors: ['azurite.tablePort is "x"; …'] }));
    assert.ok(bad.tooltip.startsWith('**Azurite Table service** — not running (azurite.tablePort is not valid)'), bad.tooltip);
    const set = serviceView(input({ status: 'closed' }, { kind: 'table', configuredPort: 20002 }));
    assert.ok(set.tooltip.startsWith('**Azurite Table service** — stopped (port 20002)'), set.tooltip);
  });
});
