// Issue 34: availability against someone who holds a poller's broker password (not its key), on a
// facility made as the README's secure steps say (support/insiders.ts). e2e: the poller is a real
// `recdeck run` process whose log is under test, and the broker is the real Mosquitto whose client ids
// and ACL are under test. (A read-only panel's flood of refused commands: insiders-flood.test.ts.)
//
// 1. The poller's broker password, without its key, used to connect once a second for 8 s (with the
//    login as client id, as the broker used to force): the panel stays live, the poller's log names it
//    (its monitor login reads the broker's log; the poller's own login may not).
// 2. The same password used to read everything that login can read ($SYS and the broker's log
//    included) for the poller's client id, and to kick the poller with every id found and the login
//    itself: the id is nowhere, the poller stays on, the panel stays live, the poller's log names it.
// 3. A connection taking over the poller's client id (as only the broker's administrator or a monitor
//    password can learn it): the poller says so and comes back under a new one.
// 4. The dead poller's last messages replayed with its password: the panel goes offline all the same.
// The tests run in this order on one facility (the last one kills the poller).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { topicsOf } from '../../src/bus/topics.js';
import { channelState, connect, until } from '../support/facility.js';
import { DEFAULT_POLL_MS, LIVE, login, useInsiders, WAIT_MS } from '../support/insiders.js';

const MAIN = topicsOf('main');
// As insiders-flood.test.ts: a poll of 1 s in the suite, run's default with RECDECK_INSIDERS_DEFAULT_POLL=1.
const POLL_MS = process.env['RECDECK_INSIDERS_DEFAULT_POLL'] === '1' ? DEFAULT_POLL_MS : 1000;

describe('insiders with the poller\'s password on a secure facility', () => {
  const f = useInsiders(POLL_MS);

  it("the poller's broker password used once a second for 8 s: the panel stays live and the poller's log names each login", async () => {
    const { log, panel } = f();
    const before = log.length;
    const { samples, take } = f().sampler();
    const start = Date.now();
    for (let attempt = 0; attempt < 8; attempt++) {
      // The client id the broker used to force on this login: the poller's, before client ids were its own.
      const thief = await connect(f().broker.url, { ...login('poller-main'), clientId: 'poller-main' });
      await until(() => (take(), log.slice(before).filter((line) => line.includes('another connection logged in with this process\'s broker login "poller-main"')).length > Math.min(attempt, 4)), `the poller naming attempt ${attempt + 1}`, WAIT_MS);
      await thief.endAsync(true);
      await until(() => (take(), Date.now() >= start + (attempt + 1) * 1000), 'the next second', WAIT_MS);
    }
    const live = samples.filter((s) => LIVE.has(s)).length;
    process.stderr.write(`login theft: panel live in ${live}/${samples.length} samples (${((100 * live) / samples.length).toFixed(1)} %)\n`);
    expect(live / samples.length).toBeGreaterThanOrEqual(0.95);
    expect(log.slice(before).some((line) => line.includes('as client poller-main:'))).toBe(true);
    expect(channelState(panel, 'key0')).toMatch(/idle|recording/);
  }, 4 * WAIT_MS);

  it("the poller's password used to read all its login can read and kick the poller by any id found: nothing names the poller's id, the poller stays on, the panel stays live", async () => {
    const { broker, log } = f();
    const own = f().pollerIds().at(-1) ?? '';
    expect(own).toMatch(/^poller-main-[0-9a-f]{16}$/);
    const before = log.length;
    const { samples, take } = f().sampler();
    const reader = await connect(broker.url, { ...login('poller-main'), clientId: `reader-${randomUUID()}` });
    f().clients.push(reader);
    const read: string[] = [];
    reader.on('message', (topic, payload) => read.push(`${topic} ${payload.toString('latin1')}`));
    // Everything the login may read: the bus, $SYS, and the broker's log (Mosquitto 2.0.11 grants the
    // subscriptions and checks the acl on each message it would deliver).
    await Promise.all(['#', 'recdeck/#', '$SYS/#', '$SYS/broker/log/#', '$SYS/broker/log/N'].map((filter) => reader.subscribeAsync(filter, { qos: 0 }).catch(() => undefined)));
    // Connections with the login while it reads (client ids in the broker's log, were it readable),
    // one a second until the poller's log names one (it names at most 5 a 10 s: the last test's are in it).
    const seconds: string[] = [];
    const named = () => log.slice(before).some((line) => seconds.some((id) => line.includes(`as client ${id}:`)));
    while (!named()) {
      const id = `second-${randomUUID()}`;
      seconds.push(id);
      await (await connect(broker.url, { ...login('poller-main'), clientId: id })).endAsync(true);
      const at = Date.now();
      await until(() => (take(), named() || Date.now() >= at + 1000), 'a second', WAIT_MS);
      expect(seconds.length).toBeLessThan(20);
    }
    await until(() => (take(), read.length >= 20 && samples.length >= 200), 'two seconds of everything the login can read', WAIT_MS);
    expect(read.filter((message) => message.startsWith('$SYS/broker/log/'))).toEqual([]);
    const found = new Set([...read.join('\n').matchAll(/[A-Za-z0-9_.-]*poller-main[A-Za-z0-9_.-]*/g)].map((m) => m[0]));
    expect([...found].filter((id) => id === own)).toEqual([]);
    // Kicking with every id found, and with the login as client id.
    for (const id of [...found, 'poller-main']) {
      const kicker = await connect(broker.url, { ...login('poller-main'), clientId: id });
      f().clients.push(kicker);
      take();
    }
    const after = samples.length;
    await until(() => (take(), samples.length >= after + 200), 'two seconds of samples after the kicks', WAIT_MS);
    const live = samples.filter((s) => LIVE.has(s)).length;
    process.stderr.write(`read and kick: ${read.length} messages read, ${found.size} ids tried; panel live in ${live}/${samples.length} samples (${((100 * live) / samples.length).toFixed(1)} %)\n`);
    expect(f().pollerIds().at(-1)).toBe(own);
    expect(live / samples.length).toBeGreaterThanOrEqual(0.95);
    expect(log.slice(before).filter((line) => /took over|lost the lease/.test(line))).toEqual([]);
    expect(log.slice(before).some((line) => line.includes(`another connection logged in with this process's broker login "poller-main"`) && seconds.some((id) => line.includes(`as client ${id}:`)))).toBe(true);
  }, 4 * WAIT_MS);

  it("a connection that takes over the poller's client id (known to the broker's administrator): the poller says so and comes back under a new one", async () => {
    const { panel, broker, log } = f();
    const before = f().pollerIds().length;
    const own = f().pollerIds().at(-1);
    expect(own).toBeDefined();
    const thief = await connect(broker.url, { ...login('poller-main'), clientId: own ?? '' });
    f().clients.push(thief);
    await until(() => f().pollerIds().slice(before).some((id) => id !== own), 'the poller back with a new client id', WAIT_MS);
    await until(() => log.some((line) => line.includes(`another connection took over this process's client id ${own ?? ''}`)), 'the poller saying it was taken over', WAIT_MS);
    expect(log.find((line) => line.includes(`client id ${own ?? ''}`))).toMatch(/reconnecting under a new id in \d/);
    await until(() => channelState(panel, 'key0') === 'idle' || channelState(panel, 'key0') === 'recording', 'the panel live again', WAIT_MS);
    expect(thief.connected).toBe(true);
  }, 4 * WAIT_MS);

  it("the dead poller's last messages replayed with its password cannot hold the panel at stale: it goes offline", async () => {
    const { poller, panel, broker } = f();
    const replayer = await connect(broker.url, { ...login('poller-main'), clientId: `replayer-${randomUUID()}` });
    f().clients.push(replayer);
    const heard: Array<{ topic: string; payload: Buffer }> = [];
    replayer.on('message', (topic, payload, packet) => {
      if (!packet.retain) heard.push({ topic, payload });
    });
    await replayer.subscribeAsync([MAIN.health, MAIN.part('channels'), MAIN.lease], { qos: 0 });
    await until(() => heard.some((h) => h.topic === MAIN.part('channels')) && heard.some((h) => h.topic === MAIN.lease), "the poller's live messages recorded", WAIT_MS);
    const exited = new Promise((resolve) => poller.once('exit', resolve));
    poller.kill('SIGKILL');
    await exited;
    let replays = 0;
    await until(
      () => {
        // Replayed as they were, again and again, while the panel is watched.
        for (const { topic, payload } of heard.slice(-20)) replayer.publish(topic, payload, { qos: 0 });
        replays += 1;
        return channelState(panel, 'key0') === 'offline';
      },
      'the panel showing the recorder offline during the replay',
      WAIT_MS,
    );
    expect(replays).toBeGreaterThan(1);
  }, 4 * WAIT_MS);
});
