// The README's settings and commands tables, generated from package.json so they cannot drift.
//   node scripts/readmeTables.cjs          rewrites the tables between the README's markers
//   node scripts/readmeTables.cjs --check  exits 1 if the README differs (also checked by a unit test)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const MARKERS = {
  settings: ['<!-- settings-table:start -->', '<!-- settings-table:end -->'],
  commands: ['<!-- commands-table:start -->', '<!-- commands-table:end -->'],
};

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema) {
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' or ');
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  return Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
}

/** Markdown for the two tables, from a parsed package.json. */
function tables(pkg) {
  const props = pkg.contributes.configuration.properties;
  const settings = ['| key | type | default | meaning |', '|---|---|---|---|',
    ...Object.entries(props).map(([key, s]) => `| \`${key}\` | ${cell(typeOf(s))} | ${'default' in s ? `\`${cell(JSON.stringify(s.default))}\`` : '(unset)'} | ${cell(s.markdownDescription ?? s.description)} |`)];
  const commands = ['| id | title |', '|---|---|',
    ...pkg.contributes.commands.map((c) => `| \`${c.command}\` | ${cell(`${c.category}: ${c.title}`)} |`)];
  return { settings: settings.join('\n'), commands: commands.join('\n') };
}

/** The README text with both tables replaced. Throws if a marker is missing. */
function render(readme, pkg) {
  const t = tables(pkg);
  let out = readme;
  for (const [name, [start, end]] of Object.entries(MARKERS)) {
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`README.md lacks ${start} … ${end}`);
    out = `${out.slice(0, i + start.length)}\n${t[name]}\n${out.slice(j)}`;
  }
  return out;
}

module.exports = { tables, render };

if (require.main === module) {
  const readmePath = path.join(root, 'README.md');
  const readme = fs.readFileSync(readmePath, 'utf8');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const next = render(readme, pkg);
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      console.error('README.md tables differ from package.json: run node scripts/readmeTables.cjs');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(readmePath, next);
  }
}
