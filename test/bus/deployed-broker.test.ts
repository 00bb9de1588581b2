// e2e because Mosquitto is the part: the broker as it is deployed, with its own logins and ACL, decides
// who may publish and read what.
// The broker as deploy/mosquitto/ ships it (mosquitto.conf and acl as they are; passwd made with
// mosquitto_passwd): logins only, a login's user its client id, and each login its own topics. A panel
// drives its recorder and asks for refreshes; it cannot publish a state or on another panel's command
// topic, nor read another panel's replies; nothing larger than the packet limit gets through.
import type { MqttClient } from 'mqtt';
import { describe, expect, it, type TestContext } from 'vitest';
import { MAX_PACKET_BYTES } from '../../src/bus/limits.js';
import { topicsOf } from '../../src/bus/topics.js';
import { clientFor, connect, sharedFacility, until, type Panel, type Rig } from '../support/facility.js';
import { startDeployedBroker } from '../support/mosquitto.js';

const MAIN = topicsOf('main');
const LOGINS = { 'poller-main': 'poller-secret', 'poller-main-standby': 'standby-secret', 'desk-1': 'desk-1-secret', 'desk-2': 'desk-2-secret' };
const login = (user: string) => ({ username: user, password: LOGINS[user as keyof typeof LOGINS] });

/** Another connection with a login for one test (the broker takes its user as its client id). */
async function as(test: TestContext, f: Rig, user: keyof typeof LOGINS): Promise<{ client: MqttClient; heard: Array<{ topic: string; payload: Buffer }> }> {
  const client = await clientFor(test, f, { ...login(user), clientId: `${user}-second` });
  const heard: Array<{ topic: string; payload: Buffer }> = [];
  client.on('message', (topic, payload) => heard.push({ topic, payload }));
  return { client, heard };
}

// One facility on the deployed broker for the three tests, which leave it as they found it (the first
// looks at the writes after its mark); the standby's login hands the lease to the poller as it starts.
describe('the broker of deploy/mosquitto/', () => {
  const deployed = sharedFacility(async () => ({
    pollMs: 250,
    broker: await startDeployedBroker(LOGINS),
    pollers: ['poller-main'],
    handover: 'poller-main-standby',
    panels: ['desk-1', 'desk-2'],
    poller: (id) => ({ connect: login(id), ttlMs: 3000 }),
    panel: (id) => ({ connect: login(id) }),
  }));

  it('a panel with its login drives the recorder, and its own refresh reaches the poller', async (test) => {
    const f = deployed();
    const mark = f.mark();
    const [desk1] = f.panels as [Panel];
    await desk1.link.call({ method: 'recStart', args: [0] });
    expect(f.writes(mark)).toEqual(['PUT /api/channels/0/rec-start']);
    // A standby poller's login reads the refresh topic, as the poller does.
    const { client, heard } = await as(test, f, 'poller-main-standby');
    await client.subscribeAsync(MAIN.refresh, { qos: 1 });
    desk1.link.refresh(true);
    await until(() => heard.some((h) => h.topic === MAIN.refresh && h.payload.toString().includes('"from":"desk-1"')), "desk-1's refresh at the broker");
    // The broker says how large a packet it takes, as recdeck asks.
    expect(desk1.mqtt.serverProperties?.maximumPacketSize).toBe(MAX_PACKET_BYTES);
  }, 60_000);

  it("a panel's login cannot publish a state, or on another panel's command topic, nor read another panel's replies", async (test) => {
    const f = deployed();
    const [desk1] = f.panels as [Panel];
    const { client: desk2, heard } = await as(test, f, 'desk-2');
    await desk2.subscribeAsync(['recdeck/#', MAIN.reply('desk-1')], { qos: 1 });
    const signedByDesk2 = f.members.authority('desk-2');
    await expect(desk2.publishAsync(MAIN.part('channels'), signedByDesk2.seal(MAIN.part('channels'), Date.now(), { value: [], readAt: Date.now(), readNumber: 1 }), { qos: 1, retain: true })).rejects.toThrow(/Not authorized/);
    await expect(desk2.publishAsync(MAIN.lease, '{}', { qos: 1, retain: true })).rejects.toThrow(/Not authorized/);
    await expect(desk2.publishAsync(MAIN.cmd('desk-1'), '{}', { qos: 1 })).rejects.toThrow(/Not authorized/);
    await desk1.link.call({ method: 'recStart', args: [1] });
    await until(() => heard.some((h) => h.topic === MAIN.part('channels')), 'desk-2 reading the states');
    expect(heard.filter((h) => h.topic.includes('/reply/') || h.topic.includes('/cmd/')).map((h) => h.topic)).toEqual([]);
    expect(desk1.link.state.channels).toHaveLength(16);
  }, 60_000);

  it('no login, a wrong password, or a packet over the limit: the broker refuses', async (test) => {
    const f = deployed();
    await expect(connect(f.broker.url)).rejects.toThrow(/Not authorized|Bad User Name or Password/);
    await expect(connect(f.broker.url, { username: 'desk-1', password: 'wrong' })).rejects.toThrow(/Not authorized|Bad User Name or Password/);
    const { client } = await as(test, f, 'desk-2');
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    // The broker drops the connection mid-packet: the client may hear it as a reset (an 'error' event,
    // which with no listener failed the whole file beside a second copy of the suite) or as a close.
    const errors: string[] = [];
    client.on('error', (error) => {
      errors.push('code' in error && error.code !== undefined ? String(error.code) : error.message);
    });
    client.publish(MAIN.cmd('desk-2'), Buffer.alloc(MAX_PACKET_BYTES + 1000, 0x7b), { qos: 0 });
    await closed;
    expect(errors.filter((code) => code !== 'ECONNRESET' && code !== 'EPIPE')).toEqual([]);
  }, 60_000);
});
