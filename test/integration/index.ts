// Entry point VS Code calls inside the extension host (extensionTestsPath): runs every *.test.js
// compiled next to this file with mocha. Output goes through console.log, which the extension host
// forwards to the test runner (code-server: window.codeAutomationLog; Electron: stdout). The
// code-server path forwards console.log's raw arguments joined by commas ("%d passing (%s),1,276ms")
// and drops a bare console.log(), so the reporter formats each line itself (same result on stdout).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';

// mocha 12 is an ES module: require() returns its namespace, whose `default` is the Mocha class
// (written this way so it works with or without esModuleInterop).
type MochaClass = typeof import('mocha');
const mochaModule = require('mocha') as MochaClass & { default?: MochaClass };
const Mocha: MochaClass = mochaModule.default ?? mochaModule;

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return testFiles(full);
      return e.isFile() && e.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

export async function run(): Promise<void> {
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  base.consoleLog = (...args) => console.log(format(...args));
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    reporter: 'spec',
    color: false,
    // AZURITE_TEST_* variables reach the extension host; this one narrows the run like mocha --grep.
    ...(process.env.AZURITE_TEST_GREP ? { grep: process.env.AZURITE_TEST_GREP } : {}),
  });
  // AZURITE_TEST_SUITE=NAME runs suites/NAME (a run with its own VS Code set-up); otherwise every
  // test outside suites/.
  const suite = process.env.AZURITE_TEST_SUITE;
  const files = suite ? testFiles(path.join(__dirname, 'suites', suite)) : testFiles(__dirname).filter((f) => !f.startsWith(path.join(__dirname, 'suites') + path.sep));
  if (files.length === 0) throw new Error(`No *.test.js files under ${__dirname}`);
  for (const f of files) mocha.addFile(f);
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} integration test(s) failed.`);
}
