// e2e because the done-when is about the program an operator runs: `recdeck run --satellite-port P`
// as a process (the built CLI, its flags, its start-up, its own clock and poll loop), reached by a
// Satellite client over real TCP, driving a recorder over real HTTP. The recorder is the simulator in
// this process, so that its request log says exactly what reached it; the client that is killed mid-hold
// is a process of its own (held-key-client.mjs), so that its link ends as a killed Pi's does.
// One recdeck for the file (its start is most of a test's time): each test has a device of its own, and
// reads recdeck's output and the recorder's log only from where it began.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/server.js';
import { until } from '../../support/until.js';
import { bitmapOf, SatelliteTestClient, type Received } from './satellite-client.js';
import { realClock } from '../../../src/api/clock.js';

const MAIN = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const HELD_KEY_CLIENT = fileURLToPath(new URL('./held-key-client.mjs', import.meta.url));
/** recdeck's poll interval here: long beside the few ms a line takes on loopback, so counting polls is exact enough. */
const POLL_MS = 250;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
/** What the file's recdeck (and its simulator) leave to stop, after the last test. */
const fileCleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of fileCleanups.splice(0).reverse()) await cleanup();
});

/** A process, its output so far, and a bounded stop (SIGINT, then SIGKILL if it does not go) after the test, or the file. */
function started(args: string[], env: NodeJS.ProcessEnv = {}, stops = cleanups): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  stops.push(async () => {
    if (gone()) return;
    child.kill('SIGINT');
    await until(gone, 'the process to stop', 5000).catch(() => child.kill('SIGKILL'));
  });
  return { child, output: () => output };
}

/** The simulator as the recorder, and `recdeck run` driving it with a Satellite server on free ports. */
async function recdeckWithSatellite(): Promise<{ sim: RunningSimulator; tcpPort: number; output: () => string }> {
  const sim = await startSimulator({ port: 0, clock: realClock });
  fileCleanups.push(() => sim.close());
  const run = started([MAIN, 'run', '--recorder', sim.url, '--satellite-port', '0', '--satellite-ws-port', '0', '--no-web', '--poll-ms', String(POLL_MS), '--log-format', 'pretty'], { RECDECK_TOKEN: sim.token }, fileCleanups);
  let ports: RegExpExecArray | null = null;
  await until(() => (ports = /Companion Satellite: listening on 127\.0\.0\.1 TCP (\d+), WebSocket (\d+)/.exec(run.output())) !== null, 'the Satellite server to listen');
  return { sim, tcpPort: Number((ports as unknown as RegExpExecArray)[1]), output: run.output };
}

const lastSeq = (sim: RunningSimulator) => sim.log.list().at(-1)?.seq ?? 0;
const writesSince = (sim: RunningSimulator, seq: number) => sim.log.list().filter((r) => r.seq > seq && r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
/** recdeck's polls of the channels since a request number: each poll reads the channel list once. */
const pollsSince = (sim: RunningSimulator, seq: number) => sim.log.list().filter((r) => r.seq > seq && r.method === 'GET' && r.path === '/api/channels').length;

describe('recdeck run --satellite-port, as a process', () => {
  let recdeck: Awaited<ReturnType<typeof recdeckWithSatellite>>;
  beforeAll(async () => {
    recdeck = await recdeckWithSatellite();
  });

  it("the issue's done-when: ADD-DEVICE OK and 15 bitmaps of 72x72 RGB; key 0 pressed is one rec-start of channel 1; the key's bitmap changes within 2 polls", async () => {
    const { sim, tcpPort } = recdeck;
    const start = lastSeq(sim);
    const client = await SatelliteTestClient.tcp(tcpPort);
    cleanups.push(() => client.drop());
    client.keepAlive();
    client.arrivalMark = () => lastSeq(sim);
    await client.expect((m) => m.name === 'CAPS', 'BEGIN and CAPS');
    expect(client.received[0]).toMatchObject({ name: 'BEGIN', params: { ApiVersion: '1.14.0' } });

    const from = client.received.length;
    client.sendRaw('ADD-DEVICE DEVICEID=x PRODUCT_NAME="Satellite StreamDeck: 15" KEYS_TOTAL=15 KEYS_PER_ROW=5 BITMAPS=72\n');
    expect((await client.answer('ADD-DEVICE', from)).status).toBe('OK');
    const bitmaps = () => client.received.slice(from).filter((m) => m.name === 'KEY-STATE' && m.params.DEVICEID === 'x' && m.params.BITMAP !== undefined);
    await until(() => new Set(bitmaps().map((m) => m.params.KEY)).size === 15, '15 bitmaps');
    expect([...new Set(bitmaps().map((m) => m.params.KEY))].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 15 }, (_, i) => String(i)));
    for (const message of bitmaps()) expect(bitmapOf(message).length).toBe(72 * 72 * 3);
    // Channel 1 as recdeck shows it once the recorder has been read (the first tiles may be drawn before).
    await until(() => pollsSince(sim, start) >= 2, 'two polls');
    const key0 = () => bitmaps().filter((m) => m.params.KEY === '0');
    const shownBefore = bitmapOf(key0().at(-1) as Received);

    const mark = lastSeq(sim);
    const pressed = client.received.length;
    client.send('KEY-PRESS', { DEVICEID: 'x', KEY: 0, PRESSED: true });
    client.send('KEY-PRESS', { DEVICEID: 'x', KEY: 0, PRESSED: false });
    await until(() => client.received.slice(pressed).filter((m) => m.name === 'KEY-PRESS' && m.status === 'OK').length === 2, 'both KEY-PRESS taken');
    await until(() => writesSince(sim, mark).length > 0, 'the rec-start at the recorder');
    const recStart = sim.log.list().find((r) => r.seq > mark && r.method !== 'GET')?.seq as number;

    // The key's new bitmap, and the recorder's polls from the rec-start to its arrival: at most 2.
    const changed = () => client.received.slice(pressed).find((m) => m.name === 'KEY-STATE' && m.params.KEY === '0' && !bitmapOf(m).equals(shownBefore));
    await until(() => changed() !== undefined, "key 0's new bitmap");
    const arrivedAt = (changed() as Received).mark;
    expect(pollsSince(sim, recStart) - pollsSince(sim, arrivedAt)).toBeLessThanOrEqual(2);

    // Exactly one rec-start, still, two polls later (a second would come from a press taken twice).
    const settled = lastSeq(sim);
    await until(() => pollsSince(sim, settled) >= 2, 'two more polls');
    expect(writesSince(sim, mark)).toEqual(['PUT /api/channels/0/rec-start']);

    // Gone before the next test begins, so that the "client left" the next one waits for is its own.
    client.drop();
    await until(() => recdeck.output().includes('Companion Satellite: a client left with 1 device'), 'recdeck to see this client gone');
  });

  it('a client killed mid-hold: the hold never fires, and the device is gone', async () => {
    const { sim, tcpPort } = recdeck;
    const from = recdeck.output().length;
    const output = () => recdeck.output().slice(from);
    const holder = started([HELD_KEY_CLIENT, String(tcpPort), 'pi-cam-2']);
    await until(() => holder.output().includes('held'), 'key 0 held by the client process');
    expect(holder.output()).not.toContain('error');
    const mark = lastSeq(sim);
    holder.child.kill('SIGKILL');
    await until(() => output().includes('Companion Satellite: a client left with 1 device'), 'recdeck to see the client gone');
    // The shipped profile's hold on key 0 is 1 s (rec-stop of channel 1); 8 polls of 250 ms are well past it.
    await until(() => pollsSince(sim, mark) >= 8, 'eight polls after the kill');
    expect(writesSince(sim, mark)).toEqual([]);
    expect(output()).not.toMatch(/\bERROR\b/);
  });
});
