#!/usr/bin/env node
// Prints, as JSON, the official suite's server scenarios with the spec
// versions and the description the suite gives each one.
//
//   conformance list --server | node scenarios.mjs BUNDLE > scenarios.json
//
// The names and versions come from the suite's own `list --server` (stdin);
// the descriptions from its installed bundle (BUNDLE, dist/index.js), where
// each scenario class sets this.name, this.specVersions and
// this.description in that order. A scenario whose description cannot be
// found keeps an empty one rather than another scenario's.
import { readFileSync } from 'node:fs';

const bundle = readFileSync(process.argv[2], 'utf8');
const listed = readFileSync(0, 'utf8');

const names = [];
let inServer = false;
for (const line of listed.split('\n')) {
  if (/^Server scenarios/.test(line)) inServer = true;
  else if (/^\S/.test(line)) inServer = false;
  const m = inServer && /^\s+-\s+(\S+)(?:\s+\[([^\]]*)\])?/.exec(line);
  if (m) names.push({ name: m[1], specVersions: m[2] ? m[2].split(',') : [] });
}
if (!names.length) {
  process.stderr.write('scenarios.mjs: no server scenario in the `list --server` output on stdin\n');
  process.exit(1);
}

function description(name) {
  const at = bundle.indexOf('this.name=`' + name + '`');
  if (at < 0) return '';
  const next = bundle.indexOf('this.name=`', at + 11);
  const body = bundle.slice(at, next < 0 ? undefined : next);
  // The minifier quotes a description with backticks, double or single
  // quotes, whichever needs the fewest escapes.
  const m = /this\.description=(?:`((?:[^`\\]|\\[\s\S])*)`|"((?:[^"\\]|\\[\s\S])*)"|'((?:[^'\\]|\\[\s\S])*)')/.exec(body);
  if (!m) return '';
  if (m[1] !== undefined) return m[1].replace(/\\`/g, '`').replace(/\$\{[A-Za-z_$]+\}/g, '…');
  try {
    return JSON.parse(m[2] !== undefined ? `"${m[2]}"` : `"${m[3].replace(/\\'/g, "'").replace(/"/g, '\\"')}"`);
  } catch {
    return '';
  }
}

process.stdout.write(JSON.stringify(names.map((n) => ({ ...n, description: description(n.name) })), null, 2) + '\n');
