// Where the vitest workers' CPU went over a run, summed over the per-file profiles that
// test/support/cpu-profile.ts writes (issue 31):
//   SUITE_CPU_PROFILE=/tmp/prof npx vitest run
//   node scripts/suite-profile.mjs /tmp/prof [N] [--json OUT.json]
// Prints the top N (20) by self time (the samples in which it was the one running) by module (a package,
// or a file of src/ or test/, or node's internals) and by function, each with the test files that paid
// most of it, and by module the inclusive time too (samples with the module anywhere on the stack, once
// per sample). src/bench/profile-top.ts reads one profile the same way (self time per sample); this one
// sums many and keys by module and test file.
//
// V8 samples on a wall-clock timer, so on a loaded machine a sample is also time spent waiting for a
// core. Where a file's cost is known (its .cost.json: the main thread's CPU from /proc), its samples are
// weighted to sum to that CPU ("cpu s"; the raw sum is "sampled s"). Left out of both: the profiler's own
// start and stop (cpu-profile.ts on the stack) and a thread blocked in spawnSync (execFileSync and
// friends wait for a child process, whose CPU is the child's). The profiles see the JS thread only:
// libvips's threads (sharp) and V8's helper threads are in the process's CPU, not here.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : undefined;
// --under TEXT: only the samples with a frame whose "function url:line" holds TEXT (what a caller costs, split).
const underAt = args.indexOf('--under');
const under = underAt >= 0 ? args.splice(underAt, 2)[1] : undefined;
const [dir, topArg = '20'] = args;
if (dir === undefined) throw new Error('usage: node scripts/suite-profile.mjs DIR [N] [--json OUT.json]');
const top = Number(topArg);

/** A module: the package a url is in (the innermost node_modules), or its src/ or test/ file, or node's. */
function moduleOf(url, functionName) {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:') || !url.includes('/')) return 'node:' + url.replace(/^node:/, '').split('/').slice(0, 2).join('/');
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const own = url.match(/\/((?:src|test|dist)\/.*)$/);
  return own ? own[1] : url;
}

const short = (url) => url.replace(/^.*?\/(node_modules\/|src\/|test\/|dist\/)/, '$1');

const bump = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
/** key -> {ms, files: Map(test file -> ms)} */
const bumpBy = (map, key, file, ms) => {
  let row = map.get(key);
  if (!row) map.set(key, (row = { ms: 0, files: new Map() }));
  row.ms += ms;
  bump(row.files, file, ms);
};

const byModule = new Map();
const byModuleTotal = new Map();
const byFunction = new Map();
const byFile = new Map(); // test file -> {busy, idle, wall}
let busy = 0;
const excluded = new Map(); // why -> sampled ms
let idle = 0;

const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
for (const name of files) {
  const testFile = name.replace(/\.\d+\.cpuprofile$/, '').replaceAll('__', '/') + '.ts';
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackModules = new Map(); // node id -> the distinct modules on its stack
  const modulesOn = (id) => {
    let set = stackModules.get(id);
    if (set) return set;
    const n = nodes.get(id);
    const up = parent.get(id);
    set = new Set(up === undefined ? [] : modulesOn(up));
    set.add(ownerOf(id));
    stackModules.set(id, set);
    return set;
  };
  // A native function (a binding: writev, spawn, a sharp call) is counted in the module that called it.
  const owner = new Map();
  const ownerOf = (id) => {
    if (owner.has(id)) return owner.get(id);
    const { functionName, url } = nodes.get(id).callFrame;
    const up = parent.get(id);
    const mod = url === '' && !functionName.startsWith('(') && up !== undefined ? ownerOf(up) : moduleOf(url, functionName);
    owner.set(id, mod);
    return mod;
  };
  const underMemo = new Map();
  const isUnder = (id) => {
    if (underMemo.has(id)) return underMemo.get(id);
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const up = parent.get(id);
    const yes = `${functionName} ${url}:${lineNumber + 1}`.includes(under) || (up !== undefined && isUnder(up));
    underMemo.set(id, yes);
    return yes;
  };
  const row = byFile.get(testFile) ?? { busy: 0, idle: 0, wall: 0, sampled: 0, mainMs: 0, processMs: 0 };
  byFile.set(testFile, row);
  row.wall += (profile.endTime - profile.startTime) / 1000;
  const left = new Map(); // node id -> 'profiler' | 'spawnSync' | null
  const leftOut = (id) => {
    if (left.has(id)) return left.get(id);
    const { functionName, url } = nodes.get(id).callFrame;
    const up = parent.get(id);
    const why = url.endsWith('test/support/cpu-profile.ts') ? 'profiler' : functionName === 'spawnSync' ? 'spawnSync' : up === undefined ? null : leftOut(up);
    left.set(id, why);
    return why;
  };
  let sampled = 0;
  for (const [i, id] of profile.samples.entries()) {
    if (nodes.get(id).callFrame.functionName !== '(idle)') sampled += (profile.timeDeltas[i] ?? 0) / 1000;
  }
  const costFile = join(dir, name.replace(/\.cpuprofile$/, '.cost.json'));
  const cost = existsSync(costFile) ? JSON.parse(readFileSync(costFile, 'utf8')) : null;
  let kept = 0;
  for (const [i, id] of profile.samples.entries()) {
    const why = nodes.get(id).callFrame.functionName === '(idle)' ? 'idle' : leftOut(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (why === 'spawnSync') sampled -= ms;
    else if (why === null) kept += ms;
    bump(excluded, why ?? 'kept', ms);
  }
  // The main thread's CPU spread over the samples it was spent in (the profiler's own included, then left out).
  const weight = cost && sampled > 0 ? cost.mainMs / sampled : 1;
  if (cost) {
    row.mainMs += cost.mainMs;
    row.processMs += cost.processMs;
  }
  row.sampled += kept;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    if (functionName === '(idle)') {
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      idle += ms;
      row.idle += ms;
      return;
    }
    if (leftOut(id) !== null) return;
    if (under !== undefined && !isUnder(id)) return;
    const ms = ((profile.timeDeltas[i] ?? 0) / 1000) * weight;
    busy += ms;
    row.busy += ms;
    const mod = ownerOf(id);
    bumpBy(byModule, mod, testFile, ms);
    for (const m of modulesOn(id)) if (m !== '(root)') bumpBy(byModuleTotal, m, testFile, ms);
    const fn = `${functionName || '(anonymous)'}${url === '' ? '' : ` ${short(url)}:${lineNumber + 1}`}`;
    bumpBy(byFunction, fn, testFile, ms);
  });
}

const s = (ms) => (ms / 1000).toFixed(2).padStart(7);
const pct = (ms) => `${((100 * ms) / busy).toFixed(1).padStart(5)} %`;
const payers = (row, n = 4) =>
  [...row.files].sort((a, b) => b[1] - a[1]).slice(0, n).map(([f, ms]) => `${f.replace(/^test\//, '').replace(/\.test\.ts$/, '')} ${(ms / 1000).toFixed(1)}`).join(', ');
const sorted = (map) => [...map].sort((a, b) => b[1].ms - a[1].ms);

const out = [];
const sum = (key) => [...byFile.values()].reduce((a, r) => a + r[key], 0);
out.push(`${files.length} profiles; cpu ${s(busy)} s (main threads ${s(sum('mainMs'))} s, processes ${s(sum('processMs'))} s by /proc and cpuUsage), sampled ${s(sum('sampled'))} s, idle ${s(idle)} s`);
out.push(`left out (sampled s): ${[...excluded].map(([k, ms]) => `${k} ${s(ms).trim()}`).join(', ')}`);
out.push('', `top ${top} modules by self time (s, share of busy; inclusive s; files that paid most, s):`);
for (const [mod, row] of sorted(byModule).slice(0, top)) out.push(`${s(row.ms)} ${pct(row.ms)} ${s(byModuleTotal.get(mod)?.ms ?? 0)}  ${mod}  [${payers(row)}]`);
out.push('', `top ${top} modules by inclusive time (s, share of busy):`);
for (const [mod, row] of sorted(byModuleTotal).slice(0, top)) out.push(`${s(row.ms)} ${pct(row.ms)}  ${mod}  [${payers(row)}]`);
out.push('', `top ${top} functions by self time:`);
for (const [fn, row] of sorted(byFunction).slice(0, top)) out.push(`${s(row.ms)} ${pct(row.ms)}  ${fn}  [${payers(row)}]`);
out.push('', `top ${top} test files by CPU of the main thread (weighted samples):`);
for (const [f, row] of [...byFile].sort((a, b) => b[1].busy - a[1].busy).slice(0, top)) out.push(`${s(row.busy)} ${pct(row.busy)}  ${f}  (process ${s(row.processMs).trim()} s, sampled ${s(row.sampled).trim()} s, wall ${s(row.wall).trim()} s)`);
process.stdout.write(`${out.join('\n')}\n`);

if (jsonOut) {
  const plain = (map) => Object.fromEntries(sorted(map).map(([k, row]) => [k, { ms: Math.round(row.ms), files: Object.fromEntries([...row.files].sort((a, b) => b[1] - a[1]).map(([f, ms]) => [f, Math.round(ms)])) }]));
  writeFileSync(jsonOut, JSON.stringify({ busy, idle, byModule: plain(byModule), byModuleTotal: plain(byModuleTotal), byFunction: plain(byFunction), byFile: Object.fromEntries(byFile) }, null, 1));
}
