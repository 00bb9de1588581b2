// startBridge's one teardown (src/cli/start-bridge.ts over src/cli/teardown.ts), driven through the
// real wiring: a start that fails at each step (the Satellite port taken, the web port taken, an audit
// file that cannot be written, a state bus that refuses the login, a web server that will not start)
// releases what it had acquired and nothing is left listening or open; a stop blanks the surfaces
// before their source closes its devices. (The profile watch is not among the handles counted: its
// fs.watch is not persistent.) The broker is a fake at the transport (a TCP server that
// answers MQTT v5's CONNECT with "not authorized"), under the real MQTT library.
import { connect, createServer, type Server } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busSettings } from '../../src/cli/bus-settings.js';
import { startBridge, type BridgeSetup } from '../../src/cli/start-bridge.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { realTime } from '../../src/engine/engine-time.js';
import type { Logger } from '../../src/engine/log.js';
import { keyGrid, type SurfaceEvent, type SurfaceSource } from '../../src/engine/surface.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { TEST_MS, until } from '../support/until.js';

const PROFILE = 'name: desk\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: rec-start, channel: 1 } }\n';

/**
 * Handles this process holds open (servers, sockets, watches), by kind. Timers come and go on their own,
 * and requests in flight (CloseReq, FSReqCallback, …) end by themselves: neither is something held.
 */
function heldHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) if (kind !== 'Timeout' && kind !== 'Immediate' && !/Req/.test(kind)) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/**
 * The handles held once what was just closed is gone (a closed server is listed until a later turn of
 * the loop): two looks 20 ms apart that agree, with no request in flight.
 */
async function settledHandles(): Promise<Record<string, number>> {
  let previous = '';
  await until(() => {
    const now = JSON.stringify(process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout' && kind !== 'Immediate').sort());
    const settled = now === previous && !/Req/.test(now);
    previous = now;
    return settled;
  }, 'the handles to settle');
  return heldHandles();
}

/**
 * True when this process holds no more handles of any kind than it did then. No more, rather than the
 * same: the files of a worker run one after another in one process (vitest.config.ts), and one before
 * this may leave a handle that closes on its own a moment later.
 */
function noneBeyond(then: Record<string, number>): boolean {
  return Object.entries(heldHandles()).every(([kind, count]) => count <= (then[kind] ?? 0));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return (server.address() as { port: number }).port;
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** True when nothing listens on the port (a connection is refused). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** A source of one memory surface, saying when it was started and stopped, and how its surface looked then. */
class OneSurfaceSource implements SurfaceSource {
  readonly name = 'test source';
  readonly surface = new MemorySurface({ time: realTime, id: 'memory:desk', model: 'test-15', controls: keyGrid(3, 5, 72) });
  private readonly events = new Subject<SurfaceEvent>();
  readonly surfaces$ = this.events.asObservable();
  started = false;
  stopped = 0;
  /** At its stop: whether every key showed black (the bridge had blanked it). */
  blankAtStop: boolean | null = null;

  start(): void {
    this.started = true;
    this.events.next({ type: 'added', surface: this.surface });
  }

  async stop(): Promise<void> {
    this.stopped += 1;
    this.blankAtStop = [...this.surface.images.values()].every((image) => image.data.every((byte) => byte === 0));
    this.events.complete();
  }
}

let folder: string;
let lines: string[];
let log: Logger;
let baseline: Record<string, number>;
const servers: Server[] = [];
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-teardown-'));
  await writeFile(join(folder, 'desk.yaml'), PROFILE);
  lines = [];
  log = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  baseline = await settledHandles();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await close(server);
  await rm(folder, { recursive: true, force: true });
});

function setup(source: SurfaceSource, more: Partial<BridgeSetup> = {}): BridgeSetup {
  return { recorderFlags: [], tokenFlags: [], profilePaths: [folder], pollMs: 100, env: {}, web: null, surfaces: [], sources: [source], ...more };
}

/** The embedded simulator's port, from the line that says it started; null when it did not. */
function simulatorPort(): number | null {
  const line = lines.find((l) => l.includes('using the embedded simulator at '));
  return line === undefined ? null : Number(new URL(line.slice(line.lastIndexOf(' ') + 1)).port);
}

/** After a failed start: the source stopped once, and this process holds what it held before the start. */
async function releasedEverything(source: OneSurfaceSource): Promise<void> {
  expect(source.stopped).toBe(1);
  expect(source.started).toBe(false); // never followed: the failure came before
  await until(() => noneBeyond(baseline), `no more handles than before the start (${JSON.stringify(baseline)}; now ${JSON.stringify(heldHandles())})`);
  const simulator = simulatorPort();
  if (simulator !== null) expect(await refused(simulator)).toBe(true);
}

// Each test waits, bounded, for sockets and watches to close: longer than the integration project's 15 s on a loaded machine.
describe('startBridge: one teardown for a failed start and for a stop', { timeout: TEST_MS }, () => {
  it('the Satellite port taken: a usage error, and the source given is stopped', async () => {
    const taken = createServer();
    servers.push(taken);
    const port = await listen(taken);
    const source = new OneSurfaceSource();
    const satellite = { host: '127.0.0.1', tcpPort: port, wsPort: await freePort(), allow: [] };
    baseline = await settledHandles();
    await expect(startBridge(setup(source, { satellite }), log)).rejects.toBeInstanceOf(UsageError);
    await releasedEverything(source);
  });

  it('the web port taken: the same message as ever, and the Satellite server already listening is closed', async () => {
    const taken = createServer();
    servers.push(taken);
    const webPort = await listen(taken);
    const source = new OneSurfaceSource();
    const satellite = { host: '127.0.0.1', tcpPort: await freePort(), wsPort: await freePort(), allow: [] };
    baseline = await settledHandles();
    await expect(startBridge(setup(source, { satellite, web: { host: '127.0.0.1', port: webPort, password: null } }), log)).rejects.toThrow(`--web-port: port ${webPort} on 127.0.0.1 is in use; give another --web-port, or --no-web`);
    await releasedEverything(source);
    expect(await refused(satellite.tcpPort)).toBe(true);
    expect(await refused(satellite.wsPort)).toBe(true);
  });

  it('an audit file that cannot be written: a usage error, and the Satellite server is closed', async () => {
    const source = new OneSurfaceSource();
    const satellite = { host: '127.0.0.1', tcpPort: await freePort(), wsPort: await freePort(), allow: [] };
    const audit = { file: join(folder, 'no-such-folder', 'audit.jsonl'), maxBytes: 1 << 20 };
    await expect(startBridge(setup(source, { satellite, audit }), log)).rejects.toThrow(/--audit-file: cannot write .*no-such-folder/);
    await releasedEverything(source);
    expect(await refused(satellite.tcpPort)).toBe(true);
  });

  it('a state bus that refuses the login: the embedded simulator and the recorder connections acquired before it are released', async () => {
    // MQTT v5 CONNACK: session not present, reason 0x87 (not authorized), no properties.
    const broker = createServer((socket) => socket.once('data', () => socket.end(Buffer.from([0x20, 0x03, 0x00, 0x87, 0x00]))));
    servers.push(broker);
    const brokerPort = await listen(broker);
    baseline = await settledHandles();
    const source = new OneSurfaceSource();
    const mqtt = busSettings({ mqtt: `mqtt://127.0.0.1:${brokerPort}`, 'mqtt-insecure': true, 'mqtt-id': 'teardown-test' }, {});
    await expect(startBridge(setup(source, { mqtt, audit: { file: join(folder, 'audit.jsonl'), maxBytes: 1 << 20 } }), log)).rejects.toThrow(/--mqtt: cannot connect to mqtt:\/\/127\.0\.0\.1:\d+ as "teardown-test"/);
    expect(simulatorPort()).not.toBeNull(); // the simulator had started: the failure came after it
    await releasedEverything(source);
  });

  it('a web server that will not start: the bridge (its surfaces blanked), the alarms and all before them are released', async () => {
    const source = new OneSurfaceSource();
    const given = new MemorySurface({ time: realTime, id: 'memory:given', model: 'test-15', controls: keyGrid(3, 5, 72) });
    const satellite = { host: '127.0.0.1', tcpPort: await freePort(), wsPort: await freePort(), allow: [] };
    const alarms = { settings: AlarmSettings.parse({}), webhooks: [], secret: null };
    // Beyond loopback without a password: refused by the web server itself, after everything else is up.
    const web = { host: '192.0.2.1', port: 0, password: null };
    await expect(startBridge(setup(source, { satellite, alarms, web, surfaces: [given], audit: { file: join(folder, 'audit.jsonl'), maxBytes: 1 << 20 } }), log)).rejects.toThrow(/needs a password/);
    expect(given.images.size).toBeGreaterThan(0); // the bridge had drawn it, and blanked it at the teardown:
    expect([...given.images.values()].every((image) => image.data.every((byte) => byte === 0))).toBe(true);
    await releasedEverything(source);
    expect(await refused(satellite.tcpPort)).toBe(true);
  });

  it('a stop blanks the surfaces before their source closes its devices, releases everything, and a second stop does nothing more', async () => {
    const source = new OneSurfaceSource();
    const running = await startBridge(setup(source, { web: { host: '127.0.0.1', port: 0, password: null } }), log);
    expect(source.started).toBe(true);
    // Something other than black: a bound key's picture, not the blank a binding starts from.
    await until(() => [...source.surface.images.values()].some((image) => image.data.some((byte) => byte !== 0)), 'the bridge to draw the source’s key');
    const webPort = Number(new URL(running.remote?.url ?? '').port);
    await Promise.all([running.stop(), running.stop()]);
    await running.stop();
    expect(source.stopped).toBe(1);
    expect(source.blankAtStop).toBe(true);
    expect(await refused(webPort)).toBe(true);
    await until(() => noneBeyond(baseline), `no more handles than before the start (${JSON.stringify(baseline)}; now ${JSON.stringify(heldHandles())})`);
  });
});
