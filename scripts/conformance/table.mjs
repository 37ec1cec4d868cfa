#!/usr/bin/env node
// Writes docs/conformance.md from what scripts/conformance-side-by-side.sh
// recorded in its work directory: for every server scenario of the official
// suite, what the suite said of each server (from its own checks.json) and
// what mcpprobe said (wire/malformed/check --json), joined by
// scripts/conformance-map.json.
//
//   node table.mjs WORKDIR MAPFILE OUTFILE
//
// Nothing here judges a server anew: a cell is either the suite's verdict,
// mcpprobe's, or a pointer to the clause that decides between them.
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [work, mapFile, outFile] = process.argv.slice(2);
if (!outFile) {
  process.stderr.write('usage: node table.mjs WORKDIR MAPFILE OUTFILE\n');
  process.exit(2);
}
const readJSON = (p, fallback = null) => {
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch {
    return fallback;
  }
};
const readText = (p) => (existsSync(p) ? readFileSync(p, 'utf8').trim() : '');

const map = readJSON(mapFile);
const meta = readJSON(join(work, 'meta.json'));
const scenarios = readJSON(join(work, 'scenarios.json')); // [{name, specVersions, description}]
const servers = readJSON(join(work, 'servers.json')); // [{id, label, sdk, url}]
if (!map || !meta || !scenarios || !servers) {
  process.stderr.write(`table.mjs: ${work} lacks meta.json, scenarios.json or servers.json\n`);
  process.exit(1);
}

// cell makes text safe inside a markdown table row that markdownlint reads:
// no pipes, no line breaks, no angle brackets (MD033 takes <x> for HTML).
// A URL in it (servers' and the suite's words carry them) becomes a code
// span: never a live link in a committed file, and no bare URL for MD034.
const cell = (s, max = 0) => {
  let t = String(s ?? '').replace(/\s+/g, ' ').trim();
  if (max && t.length > max) t = t.slice(0, max - 1) + '…';
  const parts = t.split(/((?:[a-z][a-z0-9+.-]*:\/\/|www\.|mailto:|javascript:)[^\s`]+)/i);
  return parts
    .map((x, i) => {
      if (i % 2 === 1) return '`' + x.replace(/[<>]/g, '').replace(/\|/g, '\\|') + '`';
      return x.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    })
    .join('');
};

// suiteResult reads the suite's checks.json for one scenario on one server.
// INFO checks are the suite's log, not verdicts.
function suiteResult(serverDir, scenario) {
  const dir = join(serverDir, 'suite');
  const hit = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith(`server-${scenario}-`)).sort().pop() : undefined;
  if (!hit) return { status: 'not run', reason: readText(join(serverDir, 'suite.rc')) ? 'the suite wrote no result for it' : 'the suite did not run' };
  const all = readJSON(join(dir, hit, 'checks.json'), []);
  // wire-schema-valid is the suite's schema check of every message the
  // scenario saw (0.2.0 adds it to each scenario): its failure is a
  // verdict, but its pass alone says nothing of what the scenario is about.
  const checks = all.filter((c) => c.id !== 'wire-schema-valid' || c.status === 'FAILURE');
  const judged = checks.filter((c) => ['SUCCESS', 'FAILURE', 'WARNING'].includes(c.status));
  const failed = judged.filter((c) => c.status === 'FAILURE');
  const warned = judged.filter((c) => c.status === 'WARNING');
  const why = (cs) => [...new Set(cs.map((c) => c.errorMessage || c.details?.message || c.description))].join('; ');
  const about = judged[0]?.description ?? '';
  if (failed.length) return { status: 'fail', reason: why(failed), about };
  if (warned.length) return { status: 'warn', reason: why(warned), about };
  if (judged.length) return { status: 'pass', reason: '', about };
  const skipped = checks.filter((c) => c.status === 'SKIPPED');
  if (skipped.length) return { status: 'skipped', reason: why(skipped), about: skipped[0].description ?? '' };
  return { status: 'no verdict', reason: 'every check it recorded is INFO', about };
}

// declared says whether the server's capabilities hold a dotted path such
// as "resources.subscribe" (a capability object, or true).
function declared(caps, path) {
  let v = caps;
  for (const k of path.split('.')) {
    if (v == null || typeof v !== 'object' || !(k in v)) return false;
    v = v[k];
  }
  return v !== false && v != null;
}

// missingFixtures lists the suite's fixture names the server does not
// offer, from mcpprobe wire's lists.
function missingFixtures(wire, fixture) {
  if (!fixture || !wire) return [];
  const have = {
    tools: (wire.tools || []).map((t) => t.name),
    prompts: (wire.prompts || []).map((p) => p.name),
    resources: (wire.resources || []).map((r) => r.uri),
    resource_templates: (wire.resource_templates || []).map((r) => r.uriTemplate),
  };
  const kind = { tools: 'tool', prompts: 'prompt', resources: 'resource', resource_templates: 'resource template' };
  const out = [];
  for (const [k, names] of Object.entries(fixture)) {
    for (const n of names) if (!(have[k] || []).includes(n)) out.push(`${kind[k] || k} \`${n}\``);
  }
  return out;
}

// checkVerdict finds check ID's verdict in `mcpprobe check --json`: the
// first object of era ERA (legacy for a scenario of 2025 revisions, modern
// for one of 2026-07-28 or an extension; any era when ERA is empty) whose
// id is the ID and that carries an outcome; not-applicable reads as n/a.
function checkVerdict(doc, id, era = '') {
  let found = null;
  const walk = (v) => {
    if (found || v == null || typeof v !== 'object') return;
    if (!Array.isArray(v) && (v.id === id || v.check === id) && (!era || !v.era || v.era === era)) {
      const verdict = v.outcome ?? v.verdict ?? v.status ?? v.result;
      if (typeof verdict === 'string') {
        const status = verdict.toLowerCase() === 'not-applicable' ? 'n/a' : verdict.toLowerCase();
        found = { status, why: v.why || v.message || '', clause: v.clause || null };
        return;
      }
    }
    for (const x of Object.values(v)) walk(x);
  };
  walk(doc);
  return found;
}

// checkIDs is the list of `mcpprobe check` ids a map entry names: `checks`
// (a list, for a scenario that several checks judge between them) or the
// older single `check`.
const checkIDs = (entry) => (Array.isArray(entry.checks) ? entry.checks : entry.check ? [entry.check] : []);

// eraOf is the era of mcpprobe check whose verdict answers a scenario: the
// suite runs a scenario of 2025 revisions over initialize (legacy), one of
// 2026-07-28 only, or of an extension, with per-request _meta (modern).
const eraOf = (sc) => (sc.specVersions.some((v) => v.startsWith('2024') || v.startsWith('2025')) ? 'legacy' : 'modern');

// rank orders check outcomes from worst to best, to fold several checks'
// verdicts into the scenario's one: any fail fails it, any warn warns.
const rank = ['fail', 'warn', 'pass', 'observed', 'inconclusive', 'n/a'];

// mcpprobeResult is what mcpprobe said of the property the scenario judges.
function mcpprobeResult(serverDir, entry, caps, sc) {
  const ids = checkIDs(entry);
  if (ids.length) {
    const doc = readJSON(join(serverDir, 'check.json'));
    const era = eraOf(sc);
    const vs = doc ? ids.map((id) => ({ id, v: checkVerdict(doc, id, era) })).filter((x) => x.v) : [];
    if (vs.length) {
      let best = vs[0];
      for (const x of vs) if (rank.indexOf(x.v.status) < rank.indexOf(best.v.status)) best = x;
      const status = rank.includes(best.v.status) ? best.v.status : vs[0].v.status;
      const judged = vs.filter((x) => ['pass', 'fail', 'warn'].includes(x.v.status));
      const shown = (status === 'fail' || status === 'warn' ? vs.filter((x) => x.v.status === status) : judged.length ? judged : vs).slice(0, 3);
      return {
        status,
        by: `${era} check ${shown.map((x) => `\`${x.id}\``).join(', ')}${vs.length > shown.length ? ` (+${vs.length - shown.length})` : ''}`,
        why: shown[0].v.why,
        clause: shown[0].v.clause,
      };
    }
    const eraDoc = (doc?.check?.eras || []).find((x) => x.era === era);
    if (doc && (!eraDoc || eraDoc.served === false)) {
      const name = era === 'modern' ? 'the 2026-07-28 era' : 'the legacy era';
      return { status: 'n/a', by: `${era} check`, why: `the server does not serve ${name}${eraDoc?.why ? `: ${eraDoc.why}` : ''}` };
    }
    // The era was graded but none of the ids got a verdict: a check that
    // needs something the session never had (malformed's cases need a tool
    // the consent rule allows) is left out rather than not-applicable.
    if (doc && ids.every((id) => (map.pending_checks || []).includes(id))) return { status: 'none', by: '', why: `${ids.join(', ')}: pending (not in this binary yet)` };
    if (doc) return { status: 'n/a', by: `${era} check`, why: `no verdict for ${ids.map((id) => `\`${id}\``).join(', ')} in this run` };
  }
  const m = entry.mcpprobe;
  if (!m || entry.relation === 'none') return { status: 'none', by: '' };
  const doc = readJSON(join(serverDir, `${m.command}.json`));
  if (!doc) return { status: 'error', by: m.command, why: `${m.command} --json wrote no JSON (exit ${readText(join(serverDir, `${m.command}.rc`)) || '?'})` };
  if (entry.capability && caps && !declared(caps, entry.capability)) {
    return { status: 'n/a', by: m.command, why: `\`${entry.capability}\` not declared` };
  }
  const hits = (doc.findings || []).filter((f) => m.findings.includes(f.code));
  const errors = hits.filter((f) => f.severity === 'error');
  const codes = (fs) => [...new Set(fs.map((f) => `\`${f.code}\``))].join(', ');
  if (errors.length) return { status: 'fail', by: m.command, why: codes(errors), message: errors[0].message };
  if (hits.length) return { status: 'warn', by: m.command, why: codes(hits), message: hits[0].message };
  return { status: 'pass', by: m.command, why: '' };
}

const eraNotServed = 'the server does not serve 2026-07-28 (mcpprobe check found no modern era), which is no failure: 2026-07-28 basic/versioning#protocol-version-negotiation, a server that does not implement the requested version "MUST respond with an UnsupportedProtocolVersionError", and #compatibility-matrix, a modern client and a legacy server: "Fails. The server may reject the request with an implementation-defined error, stay silent, or even process an era-ambiguous method under legacy semantics"';

// clauseText is a check's clause as check --json gives it, in the words
// the mapping uses: revision, page#anchor, the sentence, its keyword.
const clauseText = (c) =>
  `${c.version} ${String(c.url || '').replace(/^https:\/\/modelcontextprotocol\.io\/specification\/[^/]+\//, '')}: "${c.text}" (${c.keyword || 'no keyword'})`;

// judge says whether the two agree and, where they do not or the suite's
// failure rests on no MUST, which clause decides.
function judge(entry, suite, probe, wire, caps, era) {
  const suiteBad = suite.status === 'fail' || suite.status === 'warn';
  const notes = [];
  const missing = suite.status === 'pass' || suiteBad ? missingFixtures(wire, entry.fixture) : [];
  let hollow = false;
  if (suite.status === 'pass' && missing.length) {
    hollow = true;
    notes.push(`the suite passes though the server has no ${missing.join(', ')}: the pass rests on its answer to an unknown name, and says nothing of the property`);
  }
  if (suiteBad) {
    if (missing.length) notes.push(`suite fixture absent (${missing.join(', ')}): says nothing of conformance`);
    if (entry.capability && caps && !declared(caps, entry.capability)) {
      notes.push(`\`${entry.capability}\` not declared, so not applicable: 2025-11-25 basic/lifecycle#operation, both parties MUST "only use capabilities that were successfully negotiated"`);
    }
    for (const b of entry.beyond_spec || []) {
      if (suite.reason.toLowerCase().includes(b.reason.toLowerCase())) notes.push(b.clause);
    }
    if (entry.extension && caps && !(caps.extensions && typeof caps.extensions === 'object' && entry.extension in caps.extensions)) {
      notes.push(`\`${entry.extension}\` not declared in \`capabilities.extensions\`, so not negotiated: 2026-07-28 basic/versioning#extension-negotiation, "If one party supports an extension but the other does not, the supporting party MUST either revert to core protocol behavior or reject the request with an appropriate error"`);
    }
    // mcpprobe check found no modern era: every 2026-07-28 request of the
    // suite met a legacy-only server, which the text lets fail as it will.
    const notServed = era === 'modern' && probe.status === 'n/a' && /^the server does not serve the 2026-07-28 era/.test(probe.why || '');
    if (notServed) notes.push(eraNotServed);
    for (const g of map.suite_wide || []) {
      if (g.when && !g.when.includes(era)) continue;
      if (notServed && g.clause.includes('basic/versioning#protocol-version-negotiation')) continue;
      if (new RegExp(g.reason, 'i').test(suite.reason)) notes.push(g.clause);
    }
  }
  const probeHas = ['pass', 'fail', 'warn'].includes(probe.status);
  // A suite failure resting only on no clause (a version the server does
  // not serve, a check the suite could not exercise, an extension not
  // negotiated) is not a disagreement with a mcpprobe pass or n/a.
  if (suiteBad && notes.length && (probe.status === 'n/a' || (probeHas && probe.status !== 'fail' && !missing.length))) return { agreement: 'suite fails on no MUST', notes, hollow };
  const suiteHas = ['pass', 'fail', 'warn'].includes(suite.status);
  if (!probeHas || !suiteHas) {
    return { agreement: probeHas ? 'mcpprobe only' : suiteHas ? 'suite only' : 'neither', notes, hollow };
  }
  if (missing.length) return { agreement: 'not comparable', notes, hollow };
  const same = (suite.status === 'pass') === (probe.status === 'pass' || probe.status === 'warn');
  if (same) return { agreement: 'agree', notes, hollow };
  // mcpprobe's failure is decided by the clause its failing check cites
  // (check --json carries it); a suite failure mcpprobe passes, by the
  // scenario's clause in the mapping.
  if (!notes.length) notes.push(`decided by ${probe.status === 'fail' && probe.clause ? clauseText(probe.clause) : entry.clause}${entry.note ? ` (${entry.note})` : ''}`);
  return { agreement: suite.status === 'pass' ? 'DISAGREE (mcpprobe fails)' : 'DISAGREE (suite fails)', notes, hollow };
}

// A subset run names its scenarios in scenarios.json and the suite's whole
// list in scenarios.all.json: the mapping is checked against the whole.
const known = new Set((readJSON(join(work, 'scenarios.all.json')) || scenarios).map((s) => s.name));
const unknownInMap = Object.keys(map.scenarios).filter((n) => !known.has(n));
const unmapped = [...known].filter((n) => !map.scenarios[n]);

const rows = {}; // scenario -> server id -> {suite, probe, j}
const perServer = {};
for (const srv of servers) {
  const dir = join(work, srv.id);
  const wireDoc = readJSON(join(dir, 'wire.json'));
  const wire = wireDoc?.wire;
  const caps = wire?.capabilities ?? null;
  perServer[srv.id] = { wire, info: wire?.server_info, check: existsSync(join(dir, 'check.json')), checkNote: readText(join(dir, 'check.note')) };
  for (const sc of scenarios) {
    const entry = map.scenarios[sc.name] || { relation: 'none', clause: 'not in scripts/conformance-map.json' };
    const suite = suiteResult(dir, sc.name);
    const probe = mcpprobeResult(dir, entry, caps, sc);
    (rows[sc.name] ??= {})[srv.id] = { suite, probe, j: judge(entry, suite, probe, wire, caps, eraOf(sc)) };
  }
}

const L = [];
const p = (s = '') => L.push(s);
p('# mcpprobe and the official conformance suite, side by side');
p();
p('Generated by `scripts/conformance-side-by-side.sh`' + (meta.quick ? ' (quick mode: one server)' : '') + '; do not edit by hand.');
p('The scenario-to-check mapping is `scripts/conformance-map.json`; how to rerun it is in [the reference](reference.md#side-by-side-with-the-official-conformance-suite).');
p();
p(`- Date: ${meta.date}`);
p(`- Machine: ${meta.machine}`);
p(`- Suite: \`${meta.suite}\` (server scenarios of \`--suite all\`: ${scenarios.length}), run with Node.js ${meta.node}`);
p(`- mcpprobe: ${meta.mcpprobe}; commands run on each server: ${meta.commands}`);
if (meta.load) p(`- Load: ${meta.load}`);
if (meta.subset) p(`- Subset: ${cell(meta.subset)}`);
p(`- Servers, each over Streamable HTTP on 127.0.0.1:`);
for (const srv of servers) {
  const info = perServer[srv.id].info;
  p(`  - **${srv.label}** (\`${srv.id}\`): ${srv.sdk}; serverInfo ${info ? `\`${`${info.name} ${info.version ?? ''}`.trim()}\`` : 'unknown (wire failed)'}; started as \`${cell(srv.command)}\`${srv.checkArgs ? `; \`mcpprobe check\` given \`${cell(srv.checkArgs)}\`` : ''}`);
}
if (unknownInMap.length) p(`- The mapping names scenarios the suite does not list: ${unknownInMap.map((n) => `\`${n}\``).join(', ')}`);
if (unmapped.length) p(`- Scenarios the mapping does not cover yet: ${unmapped.map((n) => `\`${n}\``).join(', ')}`);
p();
p('## How to read it');
p();
p('- **suite**: the verdict of the suite\'s own checks for the scenario (pass, fail, warn; "skipped" when it skipped every check, "no verdict" when it recorded only INFO), and its reason in its own words. Its `wire-schema-valid` check, which 0.2.0 adds to every scenario, counts only when it fails.');
p('- **mcpprobe**: the verdict of the `mcpprobe check` ids the mapping names, in the scenario\'s era (legacy for a scenario of 2025 revisions, modern for one of 2026-07-28 or an extension), the worst of them when several judge it; "partial:" in the equivalent column where they judge a neighbouring property (said in parentheses); "none" where no check judges it, "n/a" where the server does not declare the capability or does not serve the era.');
p('- **agreement**: agree; DISAGREE with the clause that decides it; "suite fails on no MUST" where the suite fails and mcpprobe does not, for a reason the clause column names; or "suite only" where mcpprobe has no verdict. A suite failure that rests on no MUST says why: a fixture the suite calls that only its own reference server has, a capability or extension the server never declared, a revision it does not serve, a check the suite could not exercise, or a field the spec leaves optional.');
p();
p('## Scenarios');
p();
const short = (id) => id;
p(`| scenario | what it checks | mcpprobe equivalent | ${servers.map((s) => short(s.id)).join(' | ')} |`);
p(`| --- | --- | --- | ${servers.map(() => '---').join(' | ')} |`);
for (const sc of scenarios) {
  const e = map.scenarios[sc.name] || {};
  const ids = checkIDs(e);
  const equiv = ids.length
    ? `${e.relation === 'partial' ? 'partial: ' : ''}check ${ids.map((id) => `\`${id}\``).join(', ')}${e.relation === 'partial' && e.note ? ` (${e.note})` : ''}`
    : e.mcpprobe && e.relation !== 'none'
      ? `${e.relation}: \`${e.mcpprobe.command}\` (${e.mcpprobe.findings.map((c) => `\`${c}\``).join(', ')})`
      : `none${e.note ? `: ${e.note}` : ''}`;
  const about = servers.map((s) => rows[sc.name][s.id].suite.about).find(Boolean) || '';
  const what = (sc.description.split('\n')[0] || about) + (e.fixture ? ` Calls ${Object.values(e.fixture).flat().map((n) => `\`${n}\``).join(', ')}.` : '');
  const cells = servers.map((s) => {
    const r = rows[sc.name][s.id];
    const flag = r.j.agreement.startsWith('DISAGREE') ? ' **≠**' : r.j.hollow ? ' †' : r.j.notes.length && r.suite.status !== 'pass' && r.suite.status !== 'skipped' ? ' ‡' : '';
    return `${r.suite.status} / ${r.probe.status}${flag}`;
  });
  p(`| \`${sc.name}\` | ${cell(what)} | ${cell(equiv)} | ${cells.join(' | ')} |`);
}
p();
p('Each server cell is "suite / mcpprobe". **≠** marks a disagreement, ‡ a suite failure that rests on no MUST, † a suite pass on a server that lacks the fixture the scenario calls (see the server\'s table for the clause and the answer).');
p();
const noCheck = scenarios.filter((sc) => !checkIDs(map.scenarios[sc.name] || {}).length);
p('## Scenarios with no mcpprobe check');
p();
if (!noCheck.length) p('None: every scenario maps to at least one `mcpprobe check` id.');
for (const sc of noCheck) {
  const e = map.scenarios[sc.name] || {};
  p(`- \`${sc.name}\`: ${cell(e.no_check || e.note || 'no argument in scripts/conformance-map.json yet')}`);
}
p();
const count = (id, f) => scenarios.filter((sc) => f(rows[sc.name][id])).length;
p('## Totals');
p();
p('| server | suite pass | of which without the fixture | suite fail | suite warn or no verdict | suite fail or warn resting on no MUST | mcpprobe judges | agree | disagree |');
p('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const s of servers) {
  p(`| ${s.id} | ${count(s.id, (r) => r.suite.status === 'pass')} | ${count(s.id, (r) => r.j.hollow)} | ${count(s.id, (r) => r.suite.status === 'fail')} | ${count(s.id, (r) => r.suite.status === 'warn' || r.suite.status === 'no verdict')} | ${count(s.id, (r) => r.suite.status !== 'pass' && r.j.notes.length > 0 && !r.j.agreement.startsWith('DISAGREE'))} | ${count(s.id, (r) => ['pass', 'fail', 'warn'].includes(r.probe.status))} | ${count(s.id, (r) => r.j.agreement === 'agree')} | ${count(s.id, (r) => r.j.agreement.startsWith('DISAGREE'))} |`);
}
p();
for (const s of servers) {
  const ps = perServer[s.id];
  p(`## ${s.label}`);
  p();
  // The port is the run's own: a rerun would change the line and nothing else.
  p(`\`${s.id}\`, ${s.sdk}, at \`${String(s.url).replace(/^(https?:\/\/127\.0\.0\.1):\d+/, '$1:PORT')}\`. \`mcpprobe check\`: ${ps.check ? 'run' : cell(ps.checkNote || 'not run')}.`);
  p();
  p('| scenario | suite | suite\'s reason | mcpprobe | agreement | clause |');
  p('| --- | --- | --- | --- | --- | --- |');
  for (const sc of scenarios) {
    const r = rows[sc.name][s.id];
    const probe = r.probe.status + (r.probe.by && r.probe.status !== 'none' ? ` (${r.probe.by}${r.probe.why ? `: ${r.probe.why}` : ''})` : '');
    const clause = r.j.notes.length ? r.j.notes.join('; ') : r.suite.status === 'pass' && r.probe.status !== 'fail' ? '' : (map.scenarios[sc.name]?.clause ?? '');
    p(`| \`${sc.name}\` | ${r.suite.status} | ${cell(r.suite.reason, 220) || '—'} | ${cell(probe, 200)} | ${r.j.agreement} | ${cell(clause) || '—'} |`);
  }
  p();
}
writeFileSync(outFile, L.join('\n').replace(/\n+$/, '') + '\n');
process.stdout.write(`wrote ${outFile}: ${scenarios.length} scenarios × ${servers.length} server(s)\n`);
