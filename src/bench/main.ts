// `npm run bench`: the bridge's speed and cost against the simulator on loopback, printed as a table
// with the targets beside each figure (`-- --json` prints the same figures as JSON). Steady-load runs
// each get a fresh process, so earlier sections do not weigh on their memory figures.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { messageOf } from '../api/errors.js';
import { measureChangeLatency, measurePressLatency, type ChangeLatency, type PressLatency } from './latency.js';
import { measureBusFacility, type BusFacility } from './bus.js';
import { BENCH_USAGE, deskSelected, parseCount, parseCpuQuotas, parseOnly, parsePressTrace } from './bench-flags.js';
import { measureDesk, type DeskRun } from './desk.js';
import { measureFacilityScale, meanCost, type FacilityScale } from './facility-scale.js';
import { measureIdleCost, type IdleCost } from './idle.js';
import { LOAD_KINDS, type LoadKind, type SteadyLoad } from './load.js';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { LUMP_PERIODS, THREAD_KINDS } from './press-lumps.js';
import { HOPS, hopsOf, type LoopWindow, type Sched } from './press-trace.js';
import { measureRenderCosts, type RenderCost } from './render.js';
import { measureHidSteadyState, measurePanelRedraws, type HidSteadyState, type PanelRedraw } from './streamdeck.js';

interface Results {
  node: string;
  press: PressLatency[];
  change: ChangeLatency;
  render: RenderCost[];
  previewDecodeMs: number;
  load: SteadyLoad[];
  panels: PanelRedraw[];
  hid: HidSteadyState;
  idle: IdleCost;
  bus: BusFacility;
}

const LOAD_CHILD = fileURLToPath(new URL('./load-child.js', import.meta.url));
/** The command line, checked before anything runs: a bad flag or value is said with the usage, not as a stack. */
function benchArgs() {
  try {
    const { values } = parseArgs({ options: { help: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, only: { type: 'string' }, quick: { type: 'boolean', default: false }, panels: { type: 'string' }, 'panel-processes': { type: 'string' }, curve: { type: 'string' }, 'cpu-quota': { type: 'string', multiple: true, default: [] }, 'cpu-prof': { type: 'string' }, 'render-thread': { type: 'string' }, 'press-trace': { type: 'boolean', default: false } } });
    if (values.help) {
      process.stdout.write(`${BENCH_USAGE}\n`);
      process.exit(0);
    }
    const thread = values['render-thread'];
    if (thread !== undefined && thread !== 'on' && thread !== 'off') throw new Error(`--render-thread: expected on or off, got ${JSON.stringify(thread)}`);
    const renderThread: 'on' | 'off' | undefined = thread;
    const only = parseOnly(values.only);
    const quotas = parseCpuQuotas(values['cpu-quota']);
    const desk = deskSelected(only, quotas);
    const panels = parseCount('--panels', values.panels);
    const panelProcesses = parseCount('--panel-processes', values['panel-processes']) ?? 5;
    const curve = parseCount('--curve', values.curve);
    return { ...values, only, quotas, desk, panels, panelProcesses, curve, renderThread, pressTrace: parsePressTrace(values['press-trace'], desk) };
  } catch (error) {
    process.stderr.write(`bench: ${messageOf(error)}\n${BENCH_USAGE}\n`);
    process.exit(2);
  }
}
const values = benchArgs();

/** The steady-load runs by their --only names. */
const LOADS: Record<string, LoadKind> = { 'load-none': 'no surface', 'load-off': 'thumbnails off', 'load-on': 'thumbnails on' };

/** A (d) row's bridge in a process of its own with the bridge's Node flags (load-child.ts): its JSON line. */
async function inLoadChild(kind: LoadKind, ...options: string[]): Promise<unknown> {
  const args = [...BRIDGE_NODE_FLAGS, LOAD_CHILD, kind, ...(values.quick ? ['--quick'] : []), ...options];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return JSON.parse(stdout);
}

const loadInChild = async (kind: LoadKind) => (await inLoadChild(kind)) as SteadyLoad;

/**
 * (a), idle and with 16 thumbnails. A p99 is the tenth slowest of a thousand: so few that one run's
 * figure and the next differed by half (16 thumbnails, 1000 presses each, against the floor: 1.06x,
 * 0.87x, 1.54x, 0.78x in four runs). The row the target is about gets three times the presses.
 */
async function measurePresses(): Promise<PressLatency[]> {
  const samples = values.quick ? 100 : 1000;
  return [await measurePressLatency(samples, false), await measurePressLatency(3 * samples, true)];
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

function table(results: Results): string {
  const lines: string[] = [`recdeck bench (Node ${results.node})`, ''];
  lines.push('(a) press to request received, ms            p50     p99  floor p50 floor p99  client p50 client p99  target p99 <= 1.3x floor');
  for (const p of results.press) {
    const ratio = `${fixed(p.pressP99 / p.floorP99)}x; ${fixed(p.pressP99 / p.clientP99)}x the client`;
    lines.push(`    ${p.load.padEnd(40)} ${fixed(p.pressP50).padStart(6)} ${fixed(p.pressP99).padStart(7)} ${fixed(p.floorP50).padStart(10)} ${fixed(p.floorP99).padStart(9)} ${fixed(p.clientP50).padStart(11)} ${fixed(p.clientP99).padStart(10)}  ${verdict(p.pressP99 <= 1.3 * p.floorP99)} (${ratio})`);
  }
  lines.push('    floor: the same request sent with node:http on a kept-alive connection; client: with recdeck\'s own client');
  const c = results.change;
  lines.push('', `(b) recorder change to key image, ms (poll ${c.pollMs} ms)   p50 ${fixed(c.p50, 1)}   p99 ${fixed(c.p99, 1)}   target p99 <= ${c.pollMs + 30}: ${verdict(c.p99 <= c.pollMs + 30)}`);
  lines.push('', '(c) ms per key           tick  new picture  full redraw   tick+thumb  full+thumb   targets: tick <= 0.2 at 96 px, full <= 5');
  for (const size of [...new Set(results.render.map((r) => r.size))]) {
    const plain = results.render.find((r) => r.size === size && !r.thumbnail);
    const thumb = results.render.find((r) => r.size === size && r.thumbnail);
    if (!plain || !thumb) continue;
    const ok = (size === '96' ? plain.tickMs <= 0.2 : true) && plain.fullMs <= 5;
    lines.push(`    ${size.padEnd(18)} ${fixed(plain.tickMs, 3).padStart(7)} ${fixed(plain.newPictureMs, 3).padStart(12)} ${fixed(plain.fullMs).padStart(12)} ${fixed(thumb.tickMs, 3).padStart(12)} ${fixed(thumb.fullMs).padStart(11)}   ${verdict(ok)}`);
  }
  lines.push(`    one 640x360 preview decoded and resized: ${fixed(results.previewDecodeMs)} ms (off the press path)`);
  const warmUp = results.load[0]?.warmUpSeconds ?? 0;
  lines.push('', `(d) 16 channels recording, 32 keys, ${results.load[0]?.seconds ?? 0} s after ${warmUp} s running   CPU % of a core   event-loop p99 ms   RSS MB   refreshes/s   pictures/s   targets`);
  for (const l of results.load) {
    const on = l.kind === 'thumbnails on';
    const cpuTarget = on ? 30 : 2;
    const rssTarget = on ? 200 : 150;
    const ok = l.cpuPercent <= cpuTarget && l.eventLoopP99Ms < 20 && l.rssMb < rssTarget;
    const label = on ? 'thumbnails on (16 at 1 fps)' : l.kind === 'no surface' ? 'no surface (polling alone)' : l.kind;
    const targets = l.kind === 'no surface' ? 'none: what the two below sit on' : `cpu <= ${cpuTarget}, p99 < 20, rss < ${rssTarget}: ${verdict(ok)}`;
    lines.push(
      `    ${label.padEnd(39)} ${fixed(l.cpuPercent, 1).padStart(6)} ${fixed(l.eventLoopP99Ms, 1).padStart(18)} ${fixed(l.rssMb, 0).padStart(10)} ${fixed(l.refreshesPerSecond, 1).padStart(13)} ${fixed(l.picturesPerSecond, 0).padStart(12)}   ${targets}`,
    );
  }
  lines.push('', '(e) Stream Deck full-panel redraw through the real library, ms   new page   same page again   target: XL new page < 40');
  for (const p of results.panels) {
    lines.push(`    ${`${p.model} (${p.keys} keys)`.padEnd(40)} ${fixed(p.newPageMs, 1).padStart(8)} ${fixed(p.cachedPageMs, 1).padStart(17)}${p.model === 'xl' ? `   ${verdict(p.newPageMs < 40)}` : ''}`);
  }
  lines.push(`    HID at steady state, ${results.hid.profile}: ${fixed(results.hid.bytesPerSecond / 1024, 1)} KiB/s in ${fixed(results.hid.writesPerSecond, 1)} writes/s`);
  const i = results.idle;
  const idleOk = i.run.cpuPercent <= 1.5 * i.lean.cpuPercent && i.run.rssMb <= 130;
  const pageBudget = i.leanWithPageReads.cpuPercent + 2 * i.decodeCpuPercent;
  const clientPageBudget = i.bareWithPageReads.cpuPercent + 2 * i.decodeCpuPercent;
  const pageOk = i.runWithPage.cpuPercent <= pageBudget;
  const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const reads = (r: Record<string, number>) => `${fixed(total(r), 1)} reads/s: ${fixed(r.getChannelPreview ?? 0, 1)} previews, ${fixed(r.getSource ?? 0, 1)} sources`;
  const row = (label: string, cost: { cpuPercent: number; rssMb: number }, note: string) => `    ${label.padEnd(46)} ${fixed(cost.cpuPercent, 1).padStart(5)} ${fixed(cost.rssMb, 0).padStart(8)}   ${note}`;
  lines.push('', `(f) recdeck run, shipped profiles, 16 channels recording (${i.seconds} s each)         CPU % of a core   RSS MB   targets`);
  lines.push(row('the floor: node:http polling the same reads', i.lean, `(${fixed(total(i.reads.idle.lean), 1)} reads/s; the bridge made ${fixed(total(i.reads.idle.run), 1)})`));
  lines.push(row("recdeck's client polling the same reads", i.bare, `(${fixed(total(i.reads.idle.bare), 1)} reads/s)`));
  lines.push(row('recdeck run, no page open', i.run, `<= 1.5x the floor, <= 130 MB: ${verdict(idleOk)} (${fixed(i.run.cpuPercent / i.lean.cpuPercent)}x; ${fixed(i.run.cpuPercent / i.bare.cpuPercent)}x the client)`));
  lines.push(row("the floor making the page's reads too", i.leanWithPageReads, `(${reads(i.reads.page.lean)}; the bridge made ${reads(i.reads.page.run)})`));
  lines.push(row("recdeck's client making the page's reads too", i.bareWithPageReads, `(${reads(i.reads.page.bare)})`));
  lines.push(
    row('recdeck run, a page on the 32-key deck', i.runWithPage, `<= the floor + 2x decode (${fixed(i.decodeCpuPercent, 1)} %) = ${fixed(pageBudget, 1)}: ${verdict(pageOk)} (the client + 2x decode = ${fixed(clientPageBudget, 1)})`),
  );
  lines.push('', `(g) identical image writes per second at steady state, still previews: ${fixed(results.hid.identicalWritesPerSecond, 2)}   target 0: ${verdict(results.hid.identicalWritesPerSecond === 0)}`);
  const b = results.bus;
  lines.push('', `(h) one recorder, 1 poller and ${b.panels} panel bridges on one Mosquitto (poll ${b.pollMs} ms, ${b.seconds} s each)`);
  lines.push(`    requests/s at the recorder: one bridge alone ${fixed(b.oneBridgeRps, 1)}, the facility ${fixed(b.facilityRps, 1)}   target the same: ${verdict(b.facilityRps <= 1.1 * b.oneBridgeRps)}`);
  lines.push(`    recorder change to key image on every panel, ms   p50 ${fixed(b.changeP50, 1)}   p99 ${fixed(b.changeP99, 1)}   target p99 <= ${b.pollMs + 40}: ${verdict(b.changeP99 <= b.pollMs + 40)} (${b.samples} images; first panel p99 ${fixed(b.firstPanelP99, 1)}, event-loop p99 ${fixed(b.eventLoopP99Ms, 1)} ms: all ${b.panels} panels share this one process)`);
  return `${lines.join('\n')}\n`;
}

const fixedOrDash = (n: number, digits = 1) => (Number.isFinite(n) ? fixed(n, digits) : '-');
const signed = (n: number, digits = 0) => `${n < 0 ? '-' : '+'}${fixed(Math.abs(n), digits)}`;

/** (i): the desk without a quota, then under each quota given. */
function deskTable(rows: readonly DeskRun[]): string {
  const first = rows[0];
  const lines = [
    `(i) a small machine at the desk: recdeck run, shipped profiles, 16 channels recording, a page in chromium at desk size (poll ${first?.pollMs ?? 0} ms, ${first?.seconds ?? 0} s each)`,
    '    bridge CPU                press → request p50 / p95 / p99 ms   change → key p50 / p99 ms   CPU % of a core  RSS MB   throttled          not live    load avg   targets',
  ];
  for (const r of rows) {
    const label = r.quotaPercent === null ? 'unlimited' : `${r.quotaPercent} % of a core`;
    const press = `${fixedOrDash(r.pressP50)} / ${fixedOrDash(r.pressP95)} / ${fixedOrDash(r.pressP99)} (${r.presses}${r.unanswered > 0 ? `, ${r.unanswered} unanswered` : ''})`;
    const change = `${fixedOrDash(r.changeP50, 0)} / ${fixedOrDash(r.changeP99, 0)} (${r.changes}${r.changesNotShown > 0 ? `, ${r.changesNotShown} not shown in 5 s` : ''})`;
    const throttled = r.throttling === null ? '-' : `${fixed(r.throttling.throttledMs / 1000, 1)} s in ${r.throttling.throttled}/${r.throttling.periods}`;
    const pressTarget = r.quotaPercent === null ? null : r.quotaPercent <= 15 ? 15 : 10;
    const ok = (pressTarget === null || r.pressP99 <= pressTarget) && r.changeP99 <= r.pollMs + 100 && r.notLiveSamples === 0 && r.unanswered === 0 && r.changesNotShown === 0;
    const targets = `${pressTarget === null ? '' : `p99 <= ${pressTarget}, `}change p99 <= ${r.pollMs + 100}, not live 0: ${verdict(ok)}`;
    lines.push(
      `    ${label.padEnd(20)} ${press.padStart(36)} ${change.padStart(27)} ${fixed(r.cpuPercent, 1).padStart(15)} ${fixed(r.rssMb, 0).padStart(7)}   ${throttled.padEnd(18)} ${`${r.notLiveSamples}/${r.keySamples}`.padStart(9)}  ${r.loadAverage.map((l) => fixed(l, 1)).join('-').padStart(9)}   ${targets}`,
      `${' '.repeat(25)}requests/s: ${r.requestsPerS.map(([operation, n]) => `${operation} ${fixed(n, 1)}`).join(', ')}; to the page: ${fixed(r.pageFramesPerS, 0)} frames/s, ${fixed(r.pageKbPerS, 0)} kB/s`,
    );
  }
  lines.push('    throttled: time the kernel held the bridge, in periods throttled/ran (10 ms each); not live: key samples showing a channel of the healthy recorder neither REC nor READY');
  for (const r of rows) if (r.pressTrace !== null) lines.push(...pressTraceLines(r), ...lumpLines(r));
  return `${lines.join('\n')}\n`;
}

/** --press-trace: where a row's presses spent their time (press-trace.ts), and its slowest presses whole. */
function pressTraceLines(r: DeskRun): string[] {
  const t = r.pressTrace;
  if (t === null) return [];
  const label = r.quotaPercent === null ? 'unlimited' : `${r.quotaPercent} % of a core`;
  const ms = (n: number | null) => (n === null ? '-' : fixed(n, 1));
  const incomplete = Object.entries(t.incomplete).map(([what, n]) => `${n} ${what}`);
  const lines = [
    '',
    `    press split, ${label} (stamps: ${t.file}${incomplete.length > 0 ? `; chains cut short: ${incomplete.join(', ')}` : ''}${t.unexplained > 0 ? `; ${t.unexplained} stamps no press explains` : ''})`,
    `      ${'hop, ms'.padEnd(44)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'p99'.padStart(7)}   presses`,
    ...t.hops.map((h) => `      ${h.hop.padEnd(44)} ${fixedOrDash(h.p50).padStart(7)} ${fixedOrDash(h.p95).padStart(7)} ${fixedOrDash(h.p99).padStart(7)}   ${h.n}`),
    `      slowest ${t.slowest.length}: whole = ${HOPS.map(([name]) => name.split(' -> ')[1]).map((to, i) => `h${i + 1} (to ${to})`).join(' + ')}; kernel: the main thread ran / waited for a CPU`,
    `      (other processes or the quota) / the group held (cpu.stat, summed over both cores), sampled every 5 ms (further apart when the bench waits too: see each window);`,
    `      each wait counted whole where it ended; loop: the bridge's 10 ms loop timer's ticks (and the latest one's delay) between its reads of the key's down and release`,
    '      (sent 40 ms apart: "0 ticks in 0 ms" is the two read together, late) and from the release to the next input',
  ];
  for (const s of t.slowest) {
    const { hops, whole } = hopsOf(s);
    const gc = s.gc.length === 0 ? 'no GC' : `GC ${s.gc.map((g) => `${g.kind} ${fixed(g.ms, 1)} ms at ${signed(g.at - s.sentAt)}`).join(', ')}`;
    const loop = (w: LoopWindow | null) => (w === null ? '-' : `${w.ticks} ticks in ${fixed(w.windowMs, 0)} ms${w.ticks > 0 ? `, ${fixed(w.lateMaxMs, 1)} late` : ''}`);
    const counters = (c: Sched) => `ran ${fixed(c.runMs, 0)}, waited ${fixed(c.waitMs, 0)}${c.heldMs === null ? '' : `, held ${fixed(c.heldMs, 0)} in ${c.periods} periods`}`;
    // By hop only for hops of 5 ms or more: a shorter one's window is the samples' spacing, not the hop.
    const byHop = s.schedByHop.map((c, i) => (c === null || (hops[i] ?? 0) < 5 ? null : `h${i + 1} ${counters(c)} in ${fixed(c.windowMs, 0)}`)).filter((c) => c !== null);
    const sched = s.sched === null ? '; kernel: no samples around it' : `; kernel, ms: ${counters(s.sched)} in ${fixed(s.sched.windowMs, 0)} around it${byHop.length > 0 ? ` (${byHop.join('; ')})` : ''}`;
    lines.push(
      `      ${ms(whole).padStart(7)} = ${hops.map(ms).join(' + ')}   key${s.channel} at ${new Date(s.sentAt).toISOString().slice(11, 23)}; handlers ${ms(s.handledMs)} ms;${s.newConnection ? ' waited for a new connection;' : ''} loop ${loop(s.loopBefore)} before, ${loop(s.loopAfter)} after; ${gc}${sched}`,
    );
  }
  return lines;
}

/** --press-trace under a quota: the held stretches by length, and what ran in the lumps (press-lumps.ts). */
function lumpLines(r: DeskRun): string[] {
  const l = r.lumps;
  if (l === null) return [];
  const pct = (part: number, whole: number) => (whole > 0 ? `${fixed((100 * part) / whole, 0)} %` : '-');
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const split = (m: Map<string, number>, keys: readonly string[]) => {
    const sum = total(m);
    return keys.filter((k) => (m.get(k) ?? 0) > 0).map((k) => `${k} ${fixed(m.get(k) ?? 0, 0)} (${pct(m.get(k) ?? 0, sum)})`).join(', ');
  };
  const byValue = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const lines = [
    `    held stretches, ${r.quotaPercent} % (held periods in a row; each one's CPU, from a period before its first to its last, by thread, ms; with --cpu-prof the profiler's`,
    `      own thread counts in "libuv pool, other", and the main thread's tasks are shares of the profile's busy samples, which count wall time: a held thread's too)`,
    `      by length in periods: ${l.byLength.map((b) => `${b.periods}: ${b.stretches} (${b.heldPeriods} periods, ${fixed(b.heldMs / 1000, 1)} s held)`).join('; ')}`,
    `      whole window ${fixed(l.windowMs / 1000, 1)} s, CPU ${fixed(total(l.cpuAll), 0)}: ${split(l.cpuAll, THREAD_KINDS)}`,
    `      in the ${l.lumps} lumps (${LUMP_PERIODS}+ periods; ${fixed(l.lumpsMs / 1000, 1)} s), CPU ${fixed(total(l.cpuInLumps), 0)}: ${split(l.cpuInLumps, THREAD_KINDS)}`,
  ];
  if (l.mainAll !== null && l.mainInLumps !== null) {
    lines.push(`      main thread's tasks, whole window: ${split(l.mainAll, byValue(l.mainAll))}`, `      main thread's tasks, in the lumps: ${split(l.mainInLumps, byValue(l.mainInLumps))}`);
  }
  for (const s of l.largest) lines.push(`      ${s.periods} periods at ${new Date(s.from).toISOString().slice(11, 23)} in ${fixed(s.to - s.from, 0)} ms: ${split(s.cpu, THREAD_KINDS)}`);
  return lines;
}

/**
 * (i) without a quota, then under each; `--cpu-prof DIR` writes each bridge's CPU profile in DIR/<quota>;
 * `--render-thread on|off` is given to the bridge (to compare the two).
 */
async function measureDesks(quotas: readonly number[]): Promise<DeskRun[]> {
  const rows: DeskRun[] = [];
  const thread = values.renderThread;
  // --press-trace: each row's stamps kept in a folder of their own (named in the table) for a closer look.
  const traceFolder = values.pressTrace ? await mkdtemp(join(tmpdir(), 'recdeck-press-trace-')) : null;
  for (const quota of [null, ...quotas]) {
    const cpuProfileFolder = values['cpu-prof'] === undefined ? undefined : `${values['cpu-prof']}/${quota ?? 'unlimited'}`;
    const pressTraceFile = traceFolder === null ? undefined : join(traceFolder, `${quota ?? 'unlimited'}.jsonl`);
    rows.push(
      await measureDesk(quota, {
        seconds: values.quick ? 20 : 90,
        warmUpMs: values.quick ? 10_000 : 60_000,
        ...(cpuProfileFolder === undefined ? {} : { cpuProfileFolder }),
        ...(thread === undefined ? {} : { renderThread: thread }),
        ...(pressTraceFile === undefined ? {} : { pressTraceFile }),
      }),
    );
  }
  return rows;
}

/** (j): the facility at scale. */
function facilityTable(f: FacilityScale): string {
  const pollers = meanCost(f.pollers);
  const panels = meanCost(f.panelProcessCosts);
  const worst = Math.max(...f.facilityReads.map((r) => Math.abs(r / f.oneBridgeReads - 1)));
  const loadOk = worst <= 0.05;
  const changeOk = f.changeP99 <= 400 && f.notShown === 0;
  return `${[
    `(j) ${f.recorders} recorders with a poller each and ${f.panels} panels in ${f.panelProcesses} processes on one Mosquitto (poll ${f.pollMs} ms, ${f.seconds} s; load avg ${f.loadAverage.map((l) => fixed(l, 1)).join('-')})`,
    `    reads/s at each recorder: ${f.facilityReads.map((r) => fixed(r, 1)).join(', ')} against one bridge alone ${fixed(f.oneBridgeReads, 1)}   target within 5 %: ${verdict(loadOk)} (worst ${fixed(100 * worst, 1)} %)`,
    `    recorder change to key image on every panel following it, ms   p50 ${fixed(f.changeP50, 1)}   p99 ${fixed(f.changeP99, 1)}   target p99 <= 400: ${verdict(changeOk)} (${f.samples} images${f.notShown > 0 ? `, ${f.notShown} not shown within 10 s` : ''})`,
    `    CPU % of a core / RSS MB: broker ${fixed(f.broker.cpuPercent, 1)} / ${fixed(f.broker.rssMb, 0)}; each poller ${fixed(pollers.cpuPercent, 1)} / ${fixed(pollers.rssMb, 0)} (mean of ${f.pollers.length}); each panels' process ${fixed(panels.cpuPercent, 1)} / ${fixed(panels.rssMb, 0)} (mean of ${f.panelProcessCosts.length}, ${fixed(f.panels / f.panelProcesses, 0)} panels each)`,
    `    memory per panel: ${fixed(f.mbPerPanel, 1)} MB (the panels' processes' RSS beyond what each held before its first panel)`,
    `    the panels' processes' event loops: delay p99 ${fixed(f.panelLoops.delayP99Ms, 1)} ms (median of 5 s windows), max ${fixed(f.panelLoops.delayMaxMs, 1)} ms; GC ${fixed(f.panelLoops.gcSharePercent, 1)} % of the time, longest pause ${fixed(f.panelLoops.gcMaxMs, 1)} ms`,
    `    where an image's time went, ms           hop p50   hop p99   mean over images >= p50 / >= p95 / >= p99 of the whole`,
    ...f.split.map((h) => `      ${h.hop.padEnd(36)} ${fixed(h.p50, 1).padStart(7)}   ${fixed(h.p99, 1).padStart(7)}   ${fixed(h.meanOverP50, 1).padStart(7)} / ${fixed(h.meanOverP95, 1).padStart(7)} / ${fixed(h.meanOverP99, 1).padStart(7)}`),
  ].join('\n')}\n`;
}

async function main(): Promise<void> {
  const { quotas, desk } = values;
  // `--cpu-quota 25[,15]` or `--only desk`: (i) alone, without a quota and under each one given.
  if (desk) {
    const rows = await measureDesks(quotas);
    return void process.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : deskTable(rows));
  }
  const seconds = values.quick ? 3 : 20;
  const load = values.only === undefined ? undefined : LOADS[values.only];
  // `--only load-off` (-none, -on): one (d) row; with `--curve 16`, its CPU % in 16 windows of 30 s from the start.
  if (load !== undefined) return void process.stdout.write(`${JSON.stringify(await inLoadChild(load, ...(values.curve === undefined ? [] : ['--curve', String(values.curve)])))}\n`);
  // One section alone, as JSON (for a quick look at a figure).
  if (values.only === 'idle') return void process.stdout.write(`${JSON.stringify(await measureIdleCost(seconds), null, 2)}\n`);
  if (values.only === 'bus') return void process.stdout.write(`${JSON.stringify(await measureBusFacility(values.panels ?? 20, values.quick ? 3 : 10, values.quick ? 8 : 40), null, 2)}\n`);
  if (values.only === 'facility') {
    const f = await measureFacilityScale(values.panels ?? 100, values.panelProcesses, values.quick ? 10 : 60, values.quick ? 8 : 40);
    return void process.stdout.write(values.json ? `${JSON.stringify(f, null, 2)}\n` : facilityTable(f));
  }
  if (values.only === 'press') return void process.stdout.write(`${JSON.stringify(await measurePresses(), null, 2)}\n`);
  if (values.only === 'hid') return void process.stdout.write(`${JSON.stringify(await measureHidSteadyState(values.quick ? 3 : 10), null, 2)}\n`);
  const press = await measurePresses();
  const change = await measureChangeLatency(values.quick ? 16 : 60);
  const { costs, previewDecodeMs } = await measureRenderCosts();
  const loads: SteadyLoad[] = [];
  for (const kind of LOAD_KINDS) loads.push(await loadInChild(kind));
  const panels = await measurePanelRedraws(values.quick ? 3 : 10);
  const hid = await measureHidSteadyState(values.quick ? 3 : 10);
  const idle = await measureIdleCost(values.quick ? 5 : 20);
  const bus = await measureBusFacility(20, values.quick ? 3 : 10, values.quick ? 8 : 40);
  const results: Results = { node: process.version, press, change, render: costs, previewDecodeMs, load: loads, panels, hid, idle, bus };
  process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : table(results));
}

await main();
