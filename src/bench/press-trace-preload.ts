// The bridge's side of bench (i)'s --press-trace, loaded into the `recdeck run` child only then
// (`node --import file:///.../press-trace-preload.js`), so the product's code is measured unchanged.
// It observes, without editing src/:
// - the web deck's input messages: ws's WebSocket.prototype.emit is wrapped here, in this process only,
//   to stamp each 'message' that is an input (event-loop time: ws parses a socket's data and emits in
//   the same turn; the server does not use per-message deflate), and how long its handlers ran;
// - undici's requests that are not GETs (the writes), through its diagnostics channels: created, headers
//   sent (with when its socket connected: a write that waited for a new connection shows it), answer's
//   headers arrived (node_modules/undici/docs/docs/api/DiagnosticsChannel.md);
// - the main thread's event loop (perf_hooks.monitorEventLoopDelay, 10 ms resolution: a C++ timer that
//   wakes the loop 100 times a second, a small cost the traced runs pay and others do not): how often its
//   timer fired since the previous input message and the most it came late, written with each input;
// - the collector's pauses (PerformanceObserver 'gc').
// Stamps are performance.timeOrigin + performance.now(), as the bench's and the simulator's. Lines (the
// schema is press-trace.ts's) are kept in memory and written to RECDECK_PRESS_TRACE synchronously when
// 500 have gathered and as the process exits: nothing is written to the file on the press path in the
// common case, and nothing goes to stdout or the log. The GETs are not stamped (a poll's ~100 requests a
// second would be most of the file); undici still builds its messages for them once a channel has a
// subscriber, a few µs each.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import type * as Ws from 'ws';
import type { TraceLine } from './press-trace.js';

const file = process.env.RECDECK_PRESS_TRACE;
if (file === undefined || file === '') throw new Error('press-trace-preload: RECDECK_PRESS_TRACE (the file to write the stamps to) is not set');
writeFileSync(file, '');

const now = (): number => performance.timeOrigin + performance.now();
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

let lines: string[] = [];
function flush(): void {
  if (lines.length === 0) return;
  appendFileSync(file as string, `${lines.join('\n')}\n`);
  lines = [];
}
function stamp(line: TraceLine): void {
  lines.push(JSON.stringify(line));
  if (lines.length >= 500) flush();
}
process.on('exit', flush);

const LOOP_RESOLUTION_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loop.enable();

/** An input message's deck, control and kind, or null for anything else (a view, a binary frame, junk). */
function inputOf(data: unknown, isBinary: unknown): { surface: string; control: string; input: string } | null {
  if (isBinary === true || !Buffer.isBuffer(data) || data.length > 1024) return null;
  let message: unknown;
  try {
    message = JSON.parse(data.toString());
  } catch {
    return null; // the bridge says what is wrong with it; the trace only wants inputs
  }
  const m = message as { type?: unknown; surface?: unknown; input?: { type?: unknown; control?: unknown } };
  if (m.type !== 'input' || typeof m.surface !== 'string' || typeof m.input?.type !== 'string' || typeof m.input.control !== 'string') return null;
  return { surface: m.surface, control: m.input.control, input: m.input.type };
}

// The same ws the bridge requires (src/remote/server.ts requires it too: one module, one class).
const { WebSocket } = createRequire(import.meta.url)('ws') as typeof Ws;
const emit = WebSocket.prototype.emit;
WebSocket.prototype.emit = function traced(this: Ws.WebSocket, event: string | symbol, ...args: unknown[]): boolean {
  if (event !== 'message') return emit.call(this, event, ...args);
  const at = now();
  const input = inputOf(args[0], args[1]);
  // The histogram holds each tick's whole interval (10 ms when on time): late is what is past the 10.
  const loopTicks = loop.count;
  const loopLateMaxMs = loopTicks > 0 ? Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS) : 0;
  if (input !== null) loop.reset();
  const handled = emit.call(this, event, ...args);
  if (input !== null) stamp({ k: 'read', at: round(at), handledMs: round(now() - at), ...input, loopLateMaxMs: round(loopLateMaxMs), loopTicks });
  return handled;
};

interface UndiciRequest {
  method: string;
  path: string;
}
const ids = new WeakMap<object, number>();
let nextId = 0;
subscribe('undici:request:create', (message) => {
  const { request } = message as { request: UndiciRequest };
  if (request.method === 'GET') return;
  const id = ++nextId;
  ids.set(request, id);
  stamp({ k: 'create', at: round(now()), id, method: request.method, path: request.path });
});
// When each of undici's sockets connected: a write that waited for a new connection shows it.
const connectedAt = new WeakMap<object, number>();
subscribe('undici:client:connected', (message) => void connectedAt.set((message as { socket: object }).socket, round(now())));
subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: object; socket: object };
  const id = ids.get(request);
  if (id !== undefined) stamp({ k: 'sent', at: round(now()), id, connectedAt: connectedAt.get(socket) ?? null });
});
subscribe('undici:request:headers', (message) => {
  const { request, response } = message as { request: object; response: { statusCode: number } };
  const id = ids.get(request);
  if (id !== undefined) stamp({ k: 'answered', at: round(now()), id, status: response.statusCode });
});

const GC_KINDS = new Map<number, string>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'scavenge'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'mark-compact'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } | null }).detail?.kind;
    stamp({ k: 'gc', at: round(performance.timeOrigin + entry.startTime), ms: round(entry.duration), kind: GC_KINDS.get(kind ?? -1) ?? `kind ${kind}` });
  }
}).observe({ entryTypes: ['gc'] });
