// The alarms key and the alarm-ack key end to end on virtual time: the real bridge polls the simulator
// over HTTP, the alarm engine (started as `recdeck run` starts it, with its audit) judges, and a memory
// surface shows the keys and takes the presses. A fault on a recording channel makes the alarms key show 1
// and flash; alarm-ack acknowledges it (audited, naming the key), the key stops flashing; the fault
// cleared, the key is calm again.
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { authorizationHeader } from '../../src/api/token.js';
import { startAlarms, type RunningAlarms } from '../../src/cli/alarm-setup.js';
import type { AlarmAuditRecord } from '../../src/engine/alarms/alarm.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { Logger } from '../../src/engine/log.js';
import type { AlarmsPicture } from '../../src/engine/picture.js';
import { FLASH_PHASE_MS } from '../../src/engine/show.js';
import { keyGrid } from '../../src/engine/surface.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from '../support/bridge.js';
import { RequestCounter, VirtualTime, advanceWithIo, untilWithIo } from '../support/virtual-time.js';

const POLL = 100;
const PROFILE = `name: alarm keys
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: alarm-ack } }
      key1: { show: alarms }
      key2: { press: { action: rec-start, channel: 3 } }
`;

interface Fixture {
  time: VirtualTime;
  sim: RunningSimulator;
  client: RecorderClient;
  bridge: Bridge;
  surface: MemorySurface;
  alarms: RunningAlarms;
  audit: AlarmAuditRecord[];
  quiet: () => boolean;
}

let f: Fixture;

beforeEach(async () => {
  const time = new VirtualTime();
  const sim = await startSimulator({ port: 0, grid: 4, tickMs: 0, clock: time });
  const client = new RecorderClient({ url: sim.url, token: sim.token, clock: time });
  const requests = new RequestCounter(client, time);
  const log: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const bridge = new Bridge({ recorders: [{ name: 'studio-a', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: POLL, slowMs: 1000, time });
  bridge.start();
  const audit: AlarmAuditRecord[] = [];
  const alarms = startAlarms(bridge, { settings: AlarmSettings.parse({ raisePolls: 3, clearPolls: 3 }), webhooks: [], secret: null }, log, { write: (record) => audit.push(record) });
  bridge.attachAlarms(alarms.monitor);
  const surface = new MemorySurface({ id: 'memory:alarms', model: 'test-15', controls: keyGrid(3, 5, 72), time });
  bridge.setProfiles([parseTestProfile(PROFILE)]);
  bridge.addSurface(surface);
  const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
  f = { time, sim, client, bridge, surface, alarms, audit, quiet };
  await until(() => bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
});

afterEach(async () => {
  f.alarms.stop();
  await f.bridge.stop();
  await f.client.close();
  await f.sim.close();
});

const until = (check: () => boolean, what: string, ms = 5000) => untilWithIo(f.time, f.quiet, check, what, ms);

function shown(control: string): AlarmsPicture {
  const picture = f.bridge.session('memory:alarms')?.describeControls().find((c) => c.control.id === control)?.picture;
  if (picture?.kind !== 'alarms') throw new Error(`${control} shows ${picture?.kind ?? 'nothing'}, not the alarms`);
  return picture;
}

/** What the device was last given for the key, as bytes (the picture's phases must reach the device). */
const image = (control: string) => Buffer.from(f.surface.images.get(control)?.data ?? []).toString('base64');

async function markWrong(index: number, wrong: boolean): Promise<void> {
  const answer = await request(`${f.sim.url}/_sim/channels/${index}/wrong`, { method: 'POST', body: JSON.stringify({ wrong }), headers: { authorization: authorizationHeader(f.sim.token), 'content-type': 'application/json' } });
  expect(answer.statusCode).toBe(200);
  await answer.body.dump();
}

describe('the alarms key and alarm-ack on the simulator', () => {
  it('a fault shows 1 and flashes; alarm-ack acknowledges it (audited), the key stops flashing; cleared, it is calm', async () => {
    await until(() => shown('key0').freshness === 'live', 'the alarm engine to judge');
    expect(shown('key0')).toMatchObject({ count: 0, flashing: false });
    f.surface.press('key2');
    await until(() => f.bridge.recorderStates()[0]?.channels?.[2]?.IsRecording === true, 'channel 3 to record');

    await markWrong(2, true);
    await until(() => shown('key0').count === 1, 'the alarms key to count the fault', 20 * POLL);
    expect(shown('key0')).toMatchObject({ waiting: 1, flashing: true, worst: { word: 'FAULT', recorder: 'studio-a', channel: 3, severity: 'critical', acked: false } });
    expect(shown('key1')).toEqual({ ...shown('key0') }); // `show: alarms` on another key: the same book
    // It flashes on the device: the two phases reach the key by time alone, each always drawn the same.
    // (Sampled after each step: the picture derived now reaches the device a moment after the change.)
    const phases = new Map<boolean, Set<string>>([[true, new Set()], [false, new Set()]]);
    for (let i = 0; i < 4; i++) {
      await advanceWithIo(f.time, FLASH_PHASE_MS, f.quiet);
      phases.get(shown('key0').flashPhase)?.add(image('key0'));
    }
    const [bright, dark] = [[...(phases.get(true) ?? [])], [...(phases.get(false) ?? [])]];
    expect([bright.length, dark.length]).toEqual([1, 1]);
    expect(bright[0] !== dark[0], 'the two phases look different').toBe(true);

    f.surface.press('key0');
    await until(() => shown('key0').flashing === false, 'the acknowledgement to stop the flashing');
    expect(shown('key0')).toMatchObject({ count: 1, waiting: 0, worst: { acked: true } });
    expect(f.audit.map((r) => `${r.alarm} ${r.id}${r.by === null ? '' : ` by ${r.by}`}`)).toEqual(['raised channel-fault:studio-a:ch3', 'acked channel-fault:studio-a:ch3 by memory:alarms key0']);
    await advanceWithIo(f.time, FLASH_PHASE_MS, f.quiet);
    const still = image('key0');
    await advanceWithIo(f.time, FLASH_PHASE_MS, f.quiet);
    expect(image('key0') === still, 'the acknowledged key is drawn the same in both phases').toBe(true);

    await markWrong(2, false);
    await until(() => shown('key0').count === 0, 'the alarm to clear', 20 * POLL);
    expect(shown('key0')).toMatchObject({ waiting: 0, worst: null, flashing: false, freshness: 'live' });
    expect(f.audit.at(-1)).toMatchObject({ alarm: 'cleared', id: 'channel-fault:studio-a:ch3' });
  });

  it('a key pressed with nothing to acknowledge audits nothing; a book nobody judges any more is shown stale, not calm', async () => {
    await until(() => shown('key0').freshness === 'live', 'the alarm engine to judge');
    f.surface.press('key0');
    await advanceWithIo(f.time, 3 * POLL, f.quiet);
    expect(f.audit).toEqual([]);
    f.alarms.monitor.stop();
    await until(() => shown('key0').freshness === 'stale', 'the key to say the book is old', 10 * POLL);
    expect(shown('key0')).toMatchObject({ count: 0, flashing: false });
    expect(shown('key0').ageS).not.toBeNull();
  });
});
