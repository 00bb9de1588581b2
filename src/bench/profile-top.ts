// Where a CPU profile (node --cpu-prof) spent its
// time, by function (self time: the samples in which it was the one running) and by part of the program
// (the renderer, sharp, JPEG, the device output, the web socket, the HTTP client, V8's collector...),
// as a share of the time the process was not idle. For planning what to cut into slices or move off the
// main thread: which picture work there is, and how much.

/** What `node --cpu-prof` writes (the V8 inspector's Profile). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  ms: number;
}

/** Parts of the program by where their code lives, first match wins. */
const PARTS: Array<[part: string, test: RegExp]> = [
  ['sharp', /node_modules\/sharp\//],
  ['jpeg (jpeg-turbo)', /jpeg-turbo/],
  ['render', /\/render\//],
  ['DeviceOutput', /engine\/(device-output|output-queue)\./],
  ['web socket (ws)', /node_modules\/ws\//],
  ['remote (page server)', /\/remote\//],
  ['engine', /\/engine\//],
  ['HTTP client (undici)', /undici/],
  ['recorder client (api)', /\/api\//],
  ['zod', /node_modules\/zod\//],
  ['rxjs', /node_modules\/rxjs\//],
  ['other dependencies', /node_modules\//],
  ['recdeck, other', /\/dist\/|\/src\//],
  ['node internals', /^node:|^internal\//],
];

export const partOf = (url: string, functionName: string): string => {
  if (url === '') return functionName.startsWith('(') ? functionName : 'native (no source)';
  return PARTS.find(([, test]) => test.test(url))?.[0] ?? 'other';
};

/** Self time by function and by part, in ms, largest first; '(idle)' kept apart. */
export function selfTimes(profile: CpuProfile): { byFunction: SelfTime[]; byPart: SelfTime[]; busyMs: number; idleMs: number; wallMs: number } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byPart = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = nodes.get(id);
    if (!node) throw new Error(`the profile's sample ${i} names node ${id}, which it does not hold`);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') return void (idleMs += ms);
    busyMs += ms;
    const file = url.replace(/^.*?\/(node_modules\/|src\/|dist\/)/, '$1');
    const name = `${functionName || '(anonymous)'}${url === '' ? '' : ` ${file}:${lineNumber + 1}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const part = partOf(url, functionName);
    byPart.set(part, (byPart.get(part) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { byFunction: sorted(byFunction), byPart: sorted(byPart), busyMs, idleMs, wallMs: (profile.endTime - profile.startTime) / 1000 };
}

export function profileReport(profile: CpuProfile, top: number): string {
  const { byFunction, byPart, busyMs, wallMs } = selfTimes(profile);
  const share = (ms: number) => `${((100 * ms) / busyMs).toFixed(1).padStart(5)} %`;
  const lines = [`${(busyMs / 1000).toFixed(1)} s busy in ${(wallMs / 1000).toFixed(1)} s (${((100 * busyMs) / wallMs).toFixed(1)} % of a core)`, '', 'by part (self time, share of busy):'];
  for (const p of byPart) lines.push(`  ${share(p.ms)}  ${p.name}`);
  lines.push('', `top ${top} functions by self time:`);
  for (const f of byFunction.slice(0, top)) lines.push(`  ${share(f.ms)}  ${(f.ms / 1000).toFixed(2).padStart(6)} s  ${f.name}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The main thread's task in each of a profile's samples, by its whole stack (the leaf alone says "JSON"
 * or "(program)", not whose): the collector; a picture (the renderer, sharp, JPEG anywhere in the stack);
 * the page (its server or ws); a recorder's answer (undici, the client, zod); the engine's other work;
 * else the leaf's part. '(idle)' is left out. Each sample is at the profile's clock (µs, CLOCK_MONOTONIC,
 * as process.hrtime), ms here.
 */
export function taskSamples(profile: CpuProfile): Array<{ atMs: number; ms: number; task: string }> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const taskOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = taskOf.get(id);
    if (known !== undefined) return known;
    const leaf = nodes.get(id);
    if (leaf === undefined) throw new Error(`the profile's samples name node ${id}, which it does not hold`);
    let task: string | null;
    if (leaf.callFrame.functionName === '(idle)') task = null;
    else if (leaf.callFrame.functionName === '(garbage collector)') task = 'collector';
    else {
      const parts = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = nodes.get(at)?.callFrame;
        if (frame !== undefined) parts.add(partOf(frame.url, frame.functionName));
      }
      const has = (...names: string[]) => names.some((n) => parts.has(n));
      task = has('render', 'sharp', 'jpeg (jpeg-turbo)')
        ? 'pictures'
        : has('remote (page server)', 'web socket (ws)')
          ? 'page (frames, socket)'
          : has('HTTP client (undici)', 'recorder client (api)', 'zod')
            ? 'recorder answers'
            : has('engine', 'DeviceOutput', 'rxjs')
              ? 'engine, other'
              : partOf(leaf.callFrame.url, leaf.callFrame.functionName);
    }
    taskOf.set(id, task);
    return task;
  };
  const out: Array<{ atMs: number; ms: number; task: string }> = [];
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const task = classify(id);
    if (task !== null) out.push({ atMs: at / 1000, ms: delta / 1000, task });
  });
  return out;
}
