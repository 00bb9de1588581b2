// The signed envelope and the facility's grants, without a broker: what a signature binds (sender, time,
// body, topic), what an insecure bus accepts, and the topic checks every poller publication passes.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generatedFacility } from '../../src/bench/generated-facility.js';
import { ClockOffset } from '../../src/bus/clock-offset.js';
import { BusAuthority } from '../../src/bus/facility.js';
import { TokenBucket } from '../../src/bus/token-bucket.js';
import { checkedTopic } from '../../src/bus/topics.js';

const { authority } = generatedFacility('main', ['poller-main'], ['desk-1', 'desk-2']);
const TOPIC = 'recdeck/main/cmd/desk-1';
const body = { id: 'command-0001', call: { method: 'recStart', args: [0] } };

describe('the signed envelope', () => {
  it('opens with the sender, time and body it was sealed with', () => {
    const payload = authority('desk-1').seal(TOPIC, 1234, body);
    expect(JSON.parse(payload.toString())).toMatchObject({ from: 'desk-1', at: 1234, body, sig: expect.any(String) });
    expect(authority('poller-main').open(TOPIC, payload, 16_384)).toEqual({ ok: true, message: { from: 'desk-1', at: 1234, body } });
  });

  it('refuses a message altered, moved to another topic, unsigned, signed by a stranger or too big', () => {
    const poller = authority('poller-main');
    const payload = authority('desk-1').seal(TOPIC, 1234, body);
    const text = payload.toString();
    const open = (p: string | Buffer, topic = TOPIC) => poller.open(topic, Buffer.from(p), 16_384);
    expect(open(text.replace('"args":[0]', '"args":[1]'))).toEqual({ ok: false, error: `${TOPIC}: the signature is not "desk-1"'s` });
    expect(open(text.replace('"at":1234', '"at":9999'))).toMatchObject({ ok: false });
    expect(open(text, 'recdeck/main/cmd/desk-2')).toEqual({ ok: false, error: 'recdeck/main/cmd/desk-2: the signature is not "desk-1"\'s' });
    // Another panel's key cannot speak for desk-1.
    const forged = authority('desk-2').seal(TOPIC, 1234, body).toString().replace('"from":"desk-2"', '"from":"desk-1"');
    expect(open(forged)).toMatchObject({ ok: false, error: expect.stringContaining('the signature is not "desk-1"\'s') });
    expect(open(JSON.stringify({ from: 'desk-1', at: 1, body }))).toEqual({ ok: false, error: `${TOPIC}: unsigned (said to be from "desk-1")` });
    const stranger = BusAuthority.signed('nobody', generateKeyPairSync('ed25519').privateKey, { pollers: new Map(), panels: new Map() });
    expect(open(stranger.seal(TOPIC, 1, body))).toMatchObject({ ok: false, error: expect.stringContaining('from "nobody", whom the facility file does not list') });
    expect(open(`${text.slice(0, -1)},"extra":1}`)).toMatchObject({ ok: false });
    expect(open('{"from":')).toEqual({ ok: false, error: `${TOPIC}: not JSON` });
    expect(poller.open(TOPIC, Buffer.alloc(20_000, 32), 16_384)).toEqual({ ok: false, error: `${TOPIC}: a message of 20000 bytes (at most 16384 here); not read` });
  });

  it('is what another tool can make: the topic, a line feed and the envelope before "sig", signed with Ed25519', () => {
    const tool = generateKeyPairSync('ed25519');
    const facility = { pollers: new Map(), panels: new Map([['node-red', { publicKey: tool.publicKey, may: new Map() }]]) };
    const poller = BusAuthority.signed('poller-main', generateKeyPairSync('ed25519').privateKey, facility);
    const topic = 'recdeck/main/refresh';
    const unsigned = '{"from":"node-red","at":5,"body":{"slow":true}}';
    const sig = sign(null, Buffer.from(`${topic}\n${unsigned}`), tool.privateKey).toString('base64');
    const payload = Buffer.from(`${unsigned.slice(0, -1)},"sig":"${sig}"}`);
    expect(poller.open(topic, payload, 1024)).toEqual({ ok: true, message: { from: 'node-red', at: 5, body: { slow: true } } });
    expect(BusAuthority.signed('node-red', tool.privateKey, facility).seal(topic, 5, { slow: true })).toEqual(payload);
  });

  it('on an insecure bus, anything opens and is allowed', () => {
    const lab = BusAuthority.insecure('lab');
    expect(lab.open(TOPIC, Buffer.from(JSON.stringify({ from: 'anyone', at: 1, body })), 1024).ok).toBe(true);
    expect([lab.mayPoll('anyone', 'main'), lab.mayCall('anyone', 'main', 'newSession')]).toEqual([true, true]);
    expect(lab.seal(TOPIC, 1, body).toString()).not.toContain('"sig"');
  });

  it("grants: pollers poll their recorders, panels call their groups' operations", () => {
    const a = authority('poller-main');
    expect([a.mayPoll('poller-main', 'main'), a.mayPoll('poller-main', 'backup'), a.mayPoll('desk-1', 'main')]).toEqual([true, false, false]);
    expect([a.mayCall('desk-1', 'main', 'recStart'), a.mayCall('desk-1', 'main', 'getChannelPreview'), a.mayCall('desk-1', 'main', 'deleteSource'), a.mayCall('desk-1', 'backup', 'recStart'), a.mayCall('poller-main', 'main', 'recStart')]).toEqual([true, true, false, false, false]);
  });
});

describe('the topics a poller publishes on', () => {
  it('are checked against the MQTT rules and the recorder tree', () => {
    expect(checkedTopic('main', 'recdeck/main/reply/desk-1')).toBe('recdeck/main/reply/desk-1');
    for (const topic of ['recdeck/main/#', 'recdeck/main/reply/+', 'recdeck/main/reply/a\u0000b', 'recdeck/main/\ud800', `recdeck/main/${'x'.repeat(65_536)}`, 'recdeck/other/health', 'elsewhere', '']) {
      expect(() => checkedTopic('main', topic), topic.slice(0, 40)).toThrow();
    }
  });
});

describe('the clock offset and the rate limit', () => {
  it("the offset is the lowest arrival minus sending time over the window: transit does not inflate it", () => {
    const offset = new ClockOffset(1000);
    expect([offset.ms, offset.measured]).toEqual([0, false]);
    offset.sample(10_050, 10_000); // 40 ms ahead, 10 ms in transit
    offset.sample(10_400, 10_300);
    expect(offset.ms).toBe(50);
    offset.sample(11_500, 11_458); // a later window: the earlier one still counts
    expect(offset.ms).toBe(42);
    offset.sample(12_600, 12_590);
    offset.sample(13_700, 13_695); // two windows on, the old samples are gone (a clock stepped back)
    expect(offset.ms).toBe(5);
  });

  it('a bucket gives its burst, then its rate', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([1, 2, 3, 4].map(() => bucket.take(0))).toEqual([true, true, true, false]);
    expect([bucket.take(99), bucket.take(100), bucket.take(100)]).toEqual([false, true, false]);
  });

  it('a rate bucket asked about an earlier moment refills nothing and takes no tokens away', () => {
    const bucket = new TokenBucket(10, 2, 0);
    expect(bucket.take(1000)).toBe(true);
    // Judged at arrival: a message that arrived at 500, read after one judged at 1000, takes the token left.
    expect(bucket.take(500)).toBe(true);
    expect(bucket.take(500)).toBe(false);
    // And time is counted from 1000, not from 500: 100 ms refill one token, not six.
    expect([bucket.take(1100), bucket.take(1100)]).toEqual([true, false]);
  });
});
