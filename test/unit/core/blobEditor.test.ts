import * as assert from 'node:assert/strict';
import { lookup } from 'mime-types';
import { blobFileName, blobMtime, editorFor, fileNameKey } from '../../../src/core/blobEditor';

describe('core/blobEditor', () => {
  it('goes by Content-Type first', () => {
    assert.equal(editorFor('a.bin', 'text/plain; charset=utf-8'), 'text');
    assert.equal(editorFor('data', 'application/json'), 'text');
    assert.equal(editorFor('feed', 'application/atom+xml'), 'text');
    assert.equal(editorFor('picture', 'image/png'), 'image');
    assert.equal(editorFor('picture.txt', 'image/jpeg'), 'image');
    assert.equal(editorFor('archive.txt', 'application/zip'), 'binary');
    assert.equal(editorFor('photo.tiff', 'image/tiff'), 'binary', 'a type VS Code cannot preview');
  });

  it('goes by the name when the type says nothing (none, or the Blob service default octet-stream)', () => {
    assert.equal(editorFor('logo.png', 'application/octet-stream'), 'image');
    assert.equal(editorFor('logo.PNG', undefined), 'image');
    assert.equal(editorFor('notes.md', 'application/octet-stream'), 'text');
    assert.equal(editorFor('src/main.rs', undefined), 'text');
    assert.equal(editorFor('payload', 'application/octet-stream'), 'binary');
    assert.equal(editorFor('backup.zip', undefined), 'binary');
    assert.equal(editorFor('model.parquet', 'application/octet-stream'), 'binary');
    // VS Code's image preview (Chromium) cannot show TIFF: the hex editor, as for image/tiff.
    assert.equal(editorFor('scan.tif', 'application/octet-stream'), 'binary');
    assert.equal(editorFor('scan.TIFF', undefined), 'binary');
  });

  it('with no type, opens office files, archives and databases in the hex editor, and source, data and key files as text', () => {
    for (const name of ['report.docx', 'sheet.xlsx', 'lib.jar', 'backup.tar', 'app.db', 'cache.sqlite']) assert.equal(editorFor(name, 'application/octet-stream'), 'binary', name);
    for (const name of ['data.csv', 'README.md', 'main.py', 'main.go', 'Program.cs', 'main.tf', 'tls.pem', 'tls.key', 'tls.crt', 'ca.cer', 'id_ed25519.pub', 'sig.asc', 'mail.eml', 'list.m3u8', 'app.log', 'config.ini']) assert.equal(editorFor(name, 'application/octet-stream'), 'text', name);
  });

  it('opens files known by their whole name as text without a type: Dockerfile, Makefile, README, LICENSE, dotfiles', () => {
    for (const name of ['Dockerfile', 'app/Dockerfile', 'Makefile', 'README', 'LICENSE', 'CODEOWNERS', 'Jenkinsfile', '.editorconfig', '.gitignore', 'web/.npmrc', '.env', '.env.local', '.eslintrc']) {
      assert.equal(editorFor(name, 'application/octet-stream'), 'text', name);
      assert.equal(editorFor(name, undefined), 'text', name);
    }
    // The whole last segment only: a name that merely ends so, or a typed blob, goes by the rest.
    for (const name of ['payload', 'not-a-Makefile', 'backup.license.bin']) assert.equal(editorFor(name, 'application/octet-stream'), 'binary', name);
    assert.equal(editorFor('Dockerfile', 'application/zip'), 'binary');
  });

  it('opens source files as text with the type an upload gives them (mime-types types .ts as video/mp2t)', () => {
    for (const name of ['src/main.ts', 'lib/index.mts', 'lib/index.cts', 'bin/cli.cjs', 'index.php', 'build.pl', 'Module.pm', 'paper.tex', 'film.srt', 'run.bat', 'main.dart']) {
      const type = lookup(name);
      assert.equal(editorFor(name, type === false ? undefined : type), 'text', `${name} (${String(type)})`);
    }
    assert.equal(editorFor('app.properties', 'application/octet-stream'), 'text');
    assert.equal(editorFor('clip.mp4', lookup('clip.mp4') || undefined), 'binary');
  });

  it('gives two writes within one second (same Last-Modified, other ETags) different mtimes, within that second', () => {
    const second = new Date('2026-11-25T10:00:00.000Z');
    const a = blobMtime(second, '"0x8DE0D4C4B2A1F10"');
    const b = blobMtime(second, '"0x8DE0D4C4B2A1F11"');
    assert.notEqual(a, b);
    for (const m of [a, b]) assert.ok(m >= second.getTime() && m < second.getTime() + 1000, String(m));
    assert.equal(blobMtime(second, '"0x8DE0D4C4B2A1F10"'), a, 'the same write, the same mtime');
    assert.equal(blobMtime(second, undefined), second.getTime());
    assert.equal(blobMtime(undefined, undefined), 0);
  });

  it('saves a blob as the last part of its name; on Windows a backslash ends a part too (not a way out of the folder)', () => {
    assert.equal(blobFileName('2024/reports/q1.csv', 'linux'), 'q1.csv');
    assert.equal(blobFileName('..\\evil.txt', 'linux'), '..\\evil.txt', 'one file name on Linux');
    assert.equal(blobFileName('..\\evil.txt', 'win32'), 'evil.txt');
    assert.equal(blobFileName('logs\\a.txt', 'win32'), 'a.txt');
    assert.equal(blobFileName('dir/', 'linux'), '');
    assert.equal(blobFileName('a\\..', 'win32'), '..');
  });

  it('compares file names as the platform\'s file system does: case and Unicode form apart only on Linux', () => {
    const [upper, lower] = ['/out/Report.csv', '/out/report.csv'];
    assert.notEqual(fileNameKey(upper, 'linux'), fileNameKey(lower, 'linux'));
    assert.equal(fileNameKey(upper, 'darwin'), fileNameKey(lower, 'darwin'));
    assert.equal(fileNameKey('C:\\out\\Report.csv', 'win32'), fileNameKey('C:\\out\\REPORT.CSV', 'win32'));
    assert.equal(fileNameKey('/out/caf\u00e9.txt', 'darwin'), fileNameKey('/out/cafe\u0301.txt', 'darwin'));
    assert.notEqual(fileNameKey('C:\\out\\caf\u00e9.txt', 'win32'), fileNameKey('C:\\out\\cafe\u0301.txt', 'win32'), 'NTFS keeps both forms apart');
  });
});
