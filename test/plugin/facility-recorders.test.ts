// e2e: a real Mosquitto is the part: the plugin's facility panel (joinFacility, in this process) lists the
// facility's recorders as it sees them on the bus (the leases its pollers sign, retained), for the
// property inspector's Recorder choice; what no poller of that recorder signed is not listed, and said.
// A poller holds the simulator's token and publishes its lease, as in a studio.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realTime } from '../../src/engine/engine-time.js';
import { joinFacility } from '../../src/plugin/facility-panel.js';
import { inspectorAnswer, recorderChoices } from '../../src/plugin/inspector-messages.js';
import { PluginDeck, type FacilityPanel } from '../../src/plugin/plugin-deck.js';
import { connect, generatedFacility, keptLog, startPoller, type PollerProcess } from '../support/facility.js';
import { startBroker, type RestartableBroker } from '../support/mosquitto.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { until } from '../support/until.js';

const POLL_MS = 250;

let broker: RestartableBroker;
let sim: SimulatorFixture;
let poller: PollerProcess;
let members: ReturnType<typeof generatedFacility>;
let files: { facility: string; keyFile: string };
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-recorders-'));
  broker = await startBroker();
  sim = await startFixture();
  members = generatedFacility('main', ['poller-main'], ['desk-1']);
  files = await members.writeFiles(work, 'desk-1');
  poller = await startPoller(broker, sim, POLL_MS, { authority: members.authority('poller-main') });
}, 60_000);

afterAll(async () => {
  poller?.kill();
  await poller?.mqtt.endAsync(true);
  await sim?.close();
  await broker?.stop();
  rmSync(work, { recursive: true, force: true });
});

const entry = () => ({ url: broker.url, id: 'desk-1', keyFile: files.keyFile, facilityFile: files.facility });

describe("a facility's recorders, as the plugin's panel sees them on the bus", () => {
  it('lists the recorders whose lease a poller of the facility signed; forged and unsigned leases are not listed, and said', async () => {
    const log = keptLog();
    const panel: FacilityPanel = await joinFacility(entry(), { time: realTime, log });
    try {
      await until(() => panel.recorders().join() === 'main', 'the poller\'s lease of "main" seen');
      const forger = await connect(broker.url);
      try {
        // Retained, as a lease is: garbage, and a lease signed by a panel (which polls nothing).
        await forger.publishAsync('recdeck/forged/lease', Buffer.from('{"not":"an envelope"}'), { qos: 1, retain: true });
        await forger.publishAsync('recdeck/other/lease', members.authority('desk-1').seal('recdeck/other/lease', Date.now(), { recorder: 'other' }), { qos: 1, retain: true });
        await until(() => log.lines.filter((line) => line.endsWith('not listed as a recorder')).length >= 2, 'both forgeries refused');
        expect(log.lines.some((line) => line.includes('recdeck/other/lease: signed by "desk-1", who is not a poller of "other"'))).toBe(true);
        expect(panel.recorders()).toEqual(['main']);
      } finally {
        await forger.publishAsync('recdeck/forged/lease', Buffer.alloc(0), { qos: 1, retain: true });
        await forger.publishAsync('recdeck/other/lease', Buffer.alloc(0), { qos: 1, retain: true });
        await forger.endAsync();
      }
    } finally {
      await panel.close();
    }
  });

  it("the plugin tells its property inspector the facility's recorders (status.recorders), which its Recorder choice lists", async () => {
    const log = keptLog();
    const deck = new PluginDeck({
      app: { setImage: async () => undefined, setFeedback: async () => undefined, showOk: async () => undefined, showAlert: async () => undefined },
      log,
      time: realTime,
      joinFacility: (facility) => joinFacility(facility, { time: realTime, log }),
    });
    try {
      expect(deck.setGlobalSettings({ mqtt: entry() })).toEqual({ ok: true });
      await until(() => deck.knownRecorders.join() === 'main', 'the facility joined and "main" seen');
      const answer = inspectorAnswer({ request: 'status', context: 'ctx' }, deck);
      expect(answer).toEqual({ status: { context: 'ctx', problem: null, polled: [], recorders: ['main'] } });
      if (!('status' in answer)) throw new Error('expected a status');
      // The dropdown: the facility's recorders; an action naming one not seen (yet) keeps its own.
      expect(recorderChoices(answer.status.recorders, undefined)).toEqual({ names: ['main'], selected: 'main' });
      expect(recorderChoices(answer.status.recorders, 'backup')).toEqual({ names: ['main', 'backup'], selected: 'backup' });
    } finally {
      await deck.stop();
    }
  });
});

describe('the Recorder choice', () => {
  it('offers the known recorders and the current one; nothing when none is known', () => {
    expect(recorderChoices(['a', 'b'], 'b')).toEqual({ names: ['a', 'b'], selected: 'b' });
    expect(recorderChoices([], undefined)).toEqual({ names: [], selected: '' });
    expect(recorderChoices([], 'main')).toEqual({ names: ['main'], selected: 'main' });
  });
});
