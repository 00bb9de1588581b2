// One recorder, pollers and panel bridges on a real Mosquitto: the panels show what the poller reads,
// a press on any panel reaches the recorder once (also when the broker delivers the command twice),
// panels go stale then offline when the poller dies, and a standby takes over.
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { topicsOf } from '../../src/bus/topics.js';
import { connect, pictureOf, startPanel, startPoller, startSimulator, until, type Panel, type PollerProcess } from '../support/facility.js';
import { startBroker } from '../support/mosquitto.js';

const POLL_MS = 100;
let cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function facility(pollers = 1) {
  const broker = await startBroker();
  cleanups.push(() => broker.close());
  const sim = await startSimulator();
  cleanups.push(() => sim.close());
  const started: PollerProcess[] = [];
  for (let i = 0; i < pollers; i++) {
    const p = await startPoller(broker, sim, POLL_MS);
    cleanups.push(async () => {
      p.poller.stop();
      await p.mqtt.endAsync(true);
      await p.client.close();
    });
    started.push(p);
    // The first claims the lease before the next one starts, so which one polls is known.
    if (i === 0) await until(() => p.poller.state.lastGoodAt !== null, 'the first poller polling');
  }
  const panels: Panel[] = [];
  for (const id of ['memory:a', 'memory:b']) {
    const panel = await startPanel(broker, POLL_MS, id);
    cleanups.push(async () => {
      await panel.bridge.stop();
      await panel.mqtt.endAsync(true);
    });
    panels.push(panel);
  }
  const channelState = (panel: Panel, control: string) => {
    const picture = pictureOf(panel, control);
    return picture?.kind === 'channel' ? picture.state : undefined;
  };
  const writes = () => sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  const gets = () => sim.sim.log.list().filter((r) => r.method === 'GET').length;
  await until(() => panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'both panels live');
  return { broker, sim, pollers: started, panels, channelState, writes, gets };
}

const press = (panel: Panel, control: string) => {
  panel.surface.down(control);
  panel.surface.up(control);
};

/** A bare MQTT client on the broker, listening on test/replies (a command's reply topic). */
async function rawClient(url: string): Promise<{ raw: MqttClient; replies: string[] }> {
  const raw: MqttClient = await connect(url);
  cleanups.push(() => raw.endAsync(true));
  const replies: string[] = [];
  raw.on('message', (topic, payload) => topic === 'test/replies' && replies.push(payload.toString()));
  await raw.subscribeAsync('test/replies', { qos: 1 });
  return { raw, replies };
}

describe('a facility on the state bus', () => {
  it('a change at the recorder shows on both panels, read by the one poller', async () => {
    const f = await facility();
    await f.sim.client.recStart(0);
    await until(() => f.panels.every((panel) => f.channelState(panel, 'key0') === 'recording'), 'channel 1 recording on both panels');
    // Only the poller holds the token: the panels have no URL, so every request came from it.
    expect(f.panels.every((panel) => panel.bridge.recorderAddresses()[0]?.url === 'mqtt recdeck/main/#')).toBe(true);
  });

  it('a press on either panel reaches the recorder exactly once, and both panels show its effect', async () => {
    const f = await facility();
    const [a, b] = f.panels as [Panel, Panel];
    const first = a.nextCommand('key0');
    press(a, 'key0');
    expect(await first).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start' });
    const second = b.nextCommand('key1');
    press(b, 'key1');
    expect(await second).toMatchObject({ result: 'ok', request: 'PUT /api/channels/1/rec-start' });
    expect(f.writes()).toEqual(['PUT /api/channels/0/rec-start', 'PUT /api/channels/1/rec-start']);
    await until(() => [a, b].every((panel) => f.channelState(panel, 'key0') === 'recording' && f.channelState(panel, 'key1') === 'recording'), 'both channels recording on both panels');
  });

  it('a command the broker delivers twice runs once; the duplicate gets the same answer', async () => {
    const f = await facility();
    const { raw, replies } = await rawClient(f.broker.url);
    const command = JSON.stringify({ id: 'command-twice-0001', call: { method: 'recStart', args: [2] }, replyTo: 'test/replies' });
    await raw.publishAsync(topicsOf('main').cmd, command, { qos: 1 });
    await raw.publishAsync(topicsOf('main').cmd, command, { qos: 1 });
    await until(() => replies.length === 2, 'both replies');
    expect(replies.map((r) => JSON.parse(r) as { id: string; ok: boolean })).toEqual([expect.objectContaining({ id: 'command-twice-0001', ok: true }), expect.objectContaining({ id: 'command-twice-0001', ok: true })]);
    expect(replies[0]).toBe(replies[1]);
    expect(f.writes()).toEqual(['PUT /api/channels/2/rec-start']);
  });

  it('a bad command is answered with what is wrong and not run', async () => {
    const f = await facility();
    const { raw, replies } = await rawClient(f.broker.url);
    await raw.publishAsync(topicsOf('main').cmd, JSON.stringify({ id: 'command-bad-args-1', call: { method: 'recStart', args: [] }, replyTo: 'test/replies' }), { qos: 1 });
    await until(() => replies.length === 1, 'the reply');
    expect(JSON.parse(replies[0] as string)).toEqual({ id: 'command-bad-args-1', ok: false, error: 'recStart takes 1 argument, got 0' });
    expect(f.writes()).toEqual([]);
  });

  it('the poller killed: its last will makes the panels stale, then offline', async () => {
    const f = await facility();
    // Every state a panel's key goes through, sampled as it is drawn.
    const seen: string[][] = [[], []];
    const sample = () =>
      f.panels.forEach((panel, i) => {
        const state = f.channelState(panel, 'key0');
        const list = seen[i] as string[];
        if (state !== undefined && list.at(-1) !== state) list.push(state);
      });
    sample();
    for (const panel of f.panels) {
      const drawn = panel.surface.output.drawn$.subscribe(sample);
      cleanups.push(() => drawn.unsubscribe());
    }
    f.pollers[0]?.kill();
    await until(() => f.panels.every((panel) => f.channelState(panel, 'key0') === 'offline'), 'both panels offline', 10 * POLL_MS + 3000);
    sample();
    for (const states of seen) expect(states).toEqual(['idle', 'stale', 'offline']);
    expect(f.panels[0]?.bridge.recorderStates()[0]?.lastError).toMatch(/poller ".+" is gone/);
  });

  it('a standby poller takes over within 3 polls of the active one\'s last will', async () => {
    const f = await facility(2);
    const [active, standby] = f.pollers as [PollerProcess, PollerProcess];
    const holding = (p: PollerProcess) => {
      let value = false;
      p.poller.holding$.subscribe((h) => (value = h)).unsubscribe();
      return value;
    };
    expect([holding(active), holding(standby)]).toEqual([true, false]);
    const watcher = await connect(f.broker.url);
    cleanups.push(() => watcher.endAsync(true));
    const will = new Promise<number>((resolve) => watcher.on('message', (topic, payload) => topic === topicsOf('main').health && (JSON.parse(payload.toString()) as { online: boolean }).online === false && resolve(Date.now())));
    const takenOver = new Promise<number>((resolve) => standby.poller.holding$.subscribe((h) => h && resolve(Date.now())));
    await watcher.subscribeAsync(topicsOf('main').health, { qos: 1 });
    const getsBefore = f.gets();
    active.kill();
    const [willAt, takenAt] = await Promise.all([will, takenOver]);
    expect(takenAt - willAt).toBeLessThanOrEqual(3 * POLL_MS);
    // The standby polls now: the panels see a change at the recorder again, and press through it.
    await f.sim.client.recStart(3);
    await until(() => f.panels.every((panel) => f.channelState(panel, 'key0') === 'idle'), 'the panels live again');
    const pressed = f.panels[1]?.nextCommand('key1');
    press(f.panels[1] as Panel, 'key1');
    expect(await pressed).toMatchObject({ result: 'ok' });
    expect(f.writes()).toEqual(['PUT /api/channels/3/rec-start', 'PUT /api/channels/1/rec-start']);
    expect(f.gets()).toBeGreaterThan(getsBefore);
  });
});
