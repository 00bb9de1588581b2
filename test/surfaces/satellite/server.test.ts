// The Satellite server under the real bridge, renderer and simulator on virtual time, with the shipped
// profiles, driven by a Satellite client written from the protocol's documentation over real TCP and
// WebSocket on 127.0.0.1. Socket traffic is waited for in real time (bounded); the engine's timing
// (polls, holds) only moves when the test moves virtual time.
import { afterEach, describe, expect, it } from 'vitest';
import { SatelliteServer, startSatelliteServer } from '../../../src/surfaces/satellite/satellite-server.js';
import { deviceBridge } from '../../support/device-bridge.js';
import { shippedProfiles } from '../../support/shipped-profiles.js';
import { WAIT_MS, until as untilSocket } from '../../support/until.js';
import { bitmapOf, manifestParam, SatelliteTestClient } from './satellite-client.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Socket traffic, asked after every 2 ms (a line on loopback comes within one), bounded as any until(). */
const until = (check: () => boolean, what: string) => untilSocket(check, what, WAIT_MS, 2);

/** The bridge with the shipped profiles, and a Satellite server on free ports feeding it. */
async function setup(options: { idleMs?: number | null; allow?: string[]; followLater?: boolean; pollMs?: number } = {}) {
  const d = await deviceBridge({ pollMs: options.pollMs });
  cleanups.push(d.close);
  d.bridge.setProfiles(await shippedProfiles());
  const server = await startSatelliteServer({ host: '127.0.0.1', tcpPort: 0, wsPort: 0, allow: options.allow ?? [], log: d.log, time: d.time, version: 'test', idleMs: options.idleMs ?? null });
  cleanups.push(() => server.stop());
  if (options.followLater !== true) d.follow(server);
  const connect = async (over: 'tcp' | 'ws') => {
    const client = over === 'tcp' ? await SatelliteTestClient.tcp(server.ports.tcp) : await SatelliteTestClient.ws(server.ports.ws);
    cleanups.push(() => client.drop());
    await client.expect((m) => m.name === 'BEGIN', 'BEGIN');
    return client;
  };
  return { d, server, connect };
}

const FIFTEEN = { PRODUCT_NAME: 'Satellite StreamDeck: 15', KEYS_TOTAL: 15, KEYS_PER_ROW: 5, BITMAPS: 72 };

/** Until every key of a device has been sent a bitmap; the latest of each. */
async function allBitmaps(client: SatelliteTestClient, device: string, keys: number) {
  await until(() => new Set(client.keyStates(device).filter((m) => m.params.BITMAP !== undefined).map((m) => m.params.KEY)).size === keys, `${keys} bitmaps of ${device}`);
  const latest = new Map<string, Buffer>();
  for (const message of client.keyStates(device)) if (message.params.BITMAP !== undefined) latest.set(String(message.params.KEY ?? message.params.CONTROLID), bitmapOf(message));
  return latest;
}

// The shipped profiles, a 15-key deck's first 15 tiles and real sockets take ~10 s of wall time on 2 busy cores.
describe('the Companion Satellite server', { timeout: 60_000 }, () => {
  it('BEGIN names the API version; a 15-key device gets 15 bitmaps of 72x72 RGB and the shipped 15-key profile; key 0 starts channel 1 once and its tile changes within 2 polls', async () => {
    const { d, connect } = await setup();
    const client = await connect('tcp');
    expect(client.received[0]?.params.ApiVersion).toBe('1.14.0');
    // Clients of API 1.10+ wait for CAPS before adding devices.
    const caps = await client.expect((m) => m.name === 'CAPS', 'CAPS');
    expect(caps.params).toMatchObject({ SUBSCRIPTIONS: '0', BITMAP_FORMATS: 'rgb', ROTARY_AMOUNT: '1' });

    const from = client.received.length;
    client.sendRaw('ADD-DEVICE DEVICEID=x PRODUCT_NAME="Satellite StreamDeck: 15" KEYS_TOTAL=15 KEYS_PER_ROW=5 BITMAPS=72\n');
    expect((await client.answer('ADD-DEVICE', from)).status).toBe('OK');
    await d.until(() => d.bridge.session('satellite:x') !== undefined, 'a session for satellite:x');
    expect(d.bridge.session('satellite:x')?.profileName).toBe('Stream Deck 15 keys');
    await d.until(() => d.bridge.recorderStates()[0]?.channels !== undefined, 'the channels read');
    await d.advance(300);
    const before = await allBitmaps(client, 'x', 15);
    for (const bitmap of before.values()) expect(bitmap.length).toBe(72 * 72 * 3);

    const mark = d.mark();
    const pressed = client.received.length;
    client.send('KEY-PRESS', { DEVICEID: 'x', KEY: 0, PRESSED: true });
    client.send('KEY-PRESS', { DEVICEID: 'x', KEY: 0, PRESSED: false });
    await client.expect((m) => m.name === 'KEY-PRESS' && m.status === 'OK', 'the press taken', pressed);
    await until(() => client.received.slice(pressed).filter((m) => m.name === 'KEY-PRESS').length === 2, 'both KEY-PRESS answered');
    await d.until(() => d.writesSince(mark).length > 0, 'the rec-start');
    // Two polls of virtual time (pollMs 100) from the rec-start: key 0 shows the recording by then.
    await d.advance(200);
    expect(d.writesSince(mark)).toEqual(['PUT /api/channels/0/rec-start']);
    const key0 = () => client.received.slice(pressed).filter((m) => m.name === 'KEY-STATE' && m.params.KEY === '0');
    await until(() => key0().length > 0, "key 0's new tile");
    expect(bitmapOf(key0().at(-1) as (typeof client.received)[number]).equals(before.get('0') as Buffer)).toBe(false);
    expect(d.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('over WebSocket: a hold stops channel 1; a link dropped mid-hold fires nothing and takes the device with it', async () => {
    const { d, connect } = await setup();
    const client = await connect('ws');
    let from = client.received.length;
    client.send('ADD-DEVICE', { DEVICEID: 'ws15', ...FIFTEEN });
    expect((await client.answer('ADD-DEVICE', from)).status).toBe('OK');
    await d.until(() => d.bridge.recorderStates()[0]?.channels !== undefined, 'the channels read');
    await allBitmaps(client, 'ws15', 15);

    // A hold of 1 s on key 0 stops channel 1 (the shipped profile), and the press itself does nothing.
    let mark = d.mark();
    from = client.received.length;
    client.send('KEY-PRESS', { DEVICEID: 'ws15', KEY: '0/0', PRESSED: true });
    await client.answer('KEY-PRESS', from);
    await d.advance(1100);
    from = client.received.length;
    client.send('KEY-PRESS', { DEVICEID: 'ws15', KEY: '0/0', PRESSED: false });
    await client.answer('KEY-PRESS', from);
    await d.until(() => d.writesSince(mark).length > 0, 'the hold');
    await d.advance(200);
    expect(d.writesSince(mark)).toEqual(['PUT /api/channels/0/rec-stop']);

    // Down again, and the link drops: the hold never fires, and the surface goes.
    mark = d.mark();
    from = client.received.length;
    client.send('KEY-PRESS', { DEVICEID: 'ws15', KEY: 0, PRESSED: true });
    await client.answer('KEY-PRESS', from);
    client.drop();
    await d.until(() => d.bridge.session('satellite:ws15') === undefined, 'the surface gone with its link');
    // Half again past the hold's 1 s: a hold that outlived its link would have fired by then.
    await d.advance(1500);
    expect(d.writesSince(mark)).toEqual([]);
  });

  it('an 8-key + 4-dial device from its layout manifest gets the shipped Stream Deck + profile: keys and strip cells drawn at their sizes, a turn steps the gain, REMOVE-DEVICE removes it', async () => {
    const { d, connect } = await setup();
    const client = await connect('ws');
    const controls: Record<string, { row: number; column: number; stylePreset?: string }> = {};
    for (let row = 0; row < 2; row++) for (let column = 0; column < 4; column++) controls[`${row}/${column}`] = { row, column };
    for (let column = 0; column < 4; column++) controls[`2/${column}`] = { row: 2, column, stylePreset: 'strip' };
    for (let column = 0; column < 4; column++) controls[`3/${column}`] = { row: 3, column, stylePreset: 'dial' };
    const manifest = { stylePresets: { default: { bitmap: { w: 120, h: 120 } }, strip: { bitmap: { w: 200, h: 100 } }, dial: {} }, controls };
    let from = client.received.length;
    client.send('ADD-DEVICE', { DEVICEID: 'plus1', PRODUCT_NAME: 'Satellite StreamDeck: plus', LAYOUT_MANIFEST: manifestParam(manifest) });
    expect((await client.answer('ADD-DEVICE', from)).status).toBe('OK');
    await d.until(() => d.bridge.session('satellite:plus1') !== undefined, 'a session');
    expect(d.bridge.session('satellite:plus1')?.profileName).toBe('Stream Deck +');
    await until(() => new Set(client.keyStates('plus1').map((m) => m.params.CONTROLID)).size === 12, 'keys and strip cells drawn');
    for (const message of client.keyStates('plus1')) {
      const id = String(message.params.CONTROLID);
      expect(bitmapOf(message).length, id).toBe(id.startsWith('2/') ? 200 * 100 * 3 : 120 * 120 * 3);
    }
    expect(client.keyStates('plus1').some((m) => String(m.params.CONTROLID).startsWith('3/'))).toBe(false);

    await d.until(() => Boolean(d.bridge.recorderStates()[0]?.sources && d.bridge.recorderStates()[0]?.channels), 'sources and channels read');
    from = client.received.length;
    client.send('KEY-ROTATE', { DEVICEID: 'plus1', CONTROLID: '3/0', DIRECTION: -3 });
    expect((await client.answer('KEY-ROTATE', from)).status).toBe('OK');
    await d.until(() => d.commands.some((r) => r.control === 'dial0'), "the dial's command");
    expect(d.commands.find((r) => r.control === 'dial0')).toMatchObject({ surface: 'satellite:plus1', action: 'gain-step', result: 'ok' });

    // A key does not turn.
    from = client.received.length;
    client.send('KEY-ROTATE', { DEVICEID: 'plus1', CONTROLID: '0/0', DIRECTION: 1 });
    expect((await client.answer('KEY-ROTATE', from)).params.MESSAGE).toMatch(/key0 is not a dial/);

    from = client.received.length;
    client.send('REMOVE-DEVICE', { DEVICEID: 'plus1' });
    expect((await client.answer('REMOVE-DEVICE', from)).status).toBe('OK');
    await d.until(() => d.bridge.session('satellite:plus1') === undefined, 'the surface removed');
  });

  it('a device added before the bridge follows the server (`recdeck run` listens first) becomes a surface when it does; one removed before does not', async () => {
    const { d, server, connect } = await setup({ followLater: true });
    const client = await connect('tcp');
    const from = client.received.length;
    client.send('ADD-DEVICE', { DEVICEID: 'early', ...FIFTEEN });
    client.send('ADD-DEVICE', { DEVICEID: 'gone', ...FIFTEEN });
    client.send('REMOVE-DEVICE', { DEVICEID: 'gone' });
    await client.answer('REMOVE-DEVICE', from);
    expect(client.received.slice(from).filter((m) => m.name === 'ADD-DEVICE').map((m) => m.status)).toEqual(['OK', 'OK']);
    d.follow(server);
    await d.until(() => d.bridge.session('satellite:early') !== undefined, 'the early device bound');
    expect(d.bridge.session('satellite:early')?.profileName).toBe('Stream Deck 15 keys');
    expect(d.bridge.attachedSurfaces().map((s) => s.id)).toEqual(['satellite:early']);
    await allBitmaps(client, 'early', 15);
  });

  it('answers bad input with a clear ERROR and goes on: malformed lines, a line over the bound, unknown commands, a reused device id, 100 devices', async () => {
    const { d, server, connect } = await setup();
    const client = await connect('tcp');
    const errorFor = async (line: string, name: string) => {
      const from = client.received.length;
      client.sendRaw(line);
      const answer = await client.expect((m) => m.name === name && (m.status === 'ERROR' || name === 'ERROR'), `ERROR for ${line.slice(0, 40)}`, from);
      return String(answer.params.MESSAGE);
    };
    expect(await errorFor('KEY-PRESS KEY=0 PRESSED=1\n', 'KEY-PRESS')).toMatch(/missing DEVICEID/);
    expect(await errorFor('ADD-DEVICE DEVICEID=a PRODUCT_NAME=x KEYS_TOTAL=abc\n', 'ADD-DEVICE')).toMatch(/KEYS_TOTAL is not a whole number/);
    expect(await errorFor('ADD-DEVICE DEVICEID=a PRODUCT_NAME=x KEYS_TOTAL=15 KEYS_PER_ROW=5 BITMAPS=100000\n', 'ADD-DEVICE')).toMatch(/BITMAPS must be at most 512/);
    expect(await errorFor('ADD-DEVICE DEVICEID=a PRODUCT_NAME=x LAYOUT_MANIFEST=bm90IGpzb24=\n', 'ADD-DEVICE')).toMatch(/LAYOUT_MANIFEST is not base64 of JSON/);
    expect(await errorFor('KEY-PRESS DEVICEID=nobody KEY=0 PRESSED=1\n', 'KEY-PRESS')).toMatch(/device nobody is not added/);
    expect(await errorFor('FROBNICATE NOW\n', 'ERROR')).toBe('unknown command FROBNICATE');
    expect(await errorFor('ADD-SUB SUBID=1 LOCATION=1/0/0\n', 'ADD-SUB')).toMatch(/does not offer ADD-SUB/);
    // A line over the bound, sent in pieces with no newline: dropped up to its end, with one ERROR.
    const from = client.received.length;
    for (let i = 0; i < 20; i++) client.sendRaw('A'.repeat(8192));
    client.sendRaw('\nPING after\n');
    await client.expect((m) => m.name === 'PONG', 'PONG after the long line', from);
    expect(client.received.slice(from).filter((m) => m.name === 'ERROR').map((m) => m.params.MESSAGE)).toEqual(['line longer than 65536 characters: dropped']);

    // A device id reused, on the same connection and from another client.
    let at = client.received.length;
    client.send('ADD-DEVICE', { DEVICEID: 'dup', ...FIFTEEN });
    expect((await client.answer('ADD-DEVICE', at)).status).toBe('OK');
    expect(await errorFor(`ADD-DEVICE DEVICEID=dup PRODUCT_NAME=x KEYS_TOTAL=6 KEYS_PER_ROW=3 BITMAPS=72\n`, 'ADD-DEVICE')).toMatch(/already added on this connection/);
    const other = await connect('ws');
    at = other.received.length;
    other.send('ADD-DEVICE', { DEVICEID: 'dup', ...FIFTEEN });
    expect((await other.answer('ADD-DEVICE', at)).params.MESSAGE).toMatch(/in use by another client/);

    // 100 devices from one client: 32 in all are taken, the rest refused; the server holds no more.
    at = other.received.length;
    for (let i = 0; i < 100; i++) other.send('ADD-DEVICE', { DEVICEID: `many${i}`, PRODUCT_NAME: 'many', KEYS_TOTAL: 6, KEYS_PER_ROW: 3, BITMAPS: 72 });
    await until(() => other.received.slice(at).filter((m) => m.name === 'ADD-DEVICE').length === 100, '100 answers');
    const answers = other.received.slice(at).filter((m) => m.name === 'ADD-DEVICE');
    expect(answers.filter((m) => m.status === 'OK')).toHaveLength(32);
    expect(answers.find((m) => m.status === 'ERROR')?.params.MESSAGE).toMatch(/has 32 devices already/);
    await d.until(() => d.bridge.attachedSurfaces().length === 33, 'the 33 surfaces attached');

    // Still answering, and both clients leaving takes all their surfaces.
    at = client.received.length;
    client.send('PING', {});
    await client.expect((m) => m.name === 'PONG', 'PONG', at);
    client.drop();
    other.send('QUIT');
    await until(() => other.closed && server.clientCount === 0, 'both clients gone');
    await d.until(() => d.bridge.attachedSurfaces().length === 0, 'every surface gone');
    expect(d.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('12 clients coming and going (QUIT, dropped, over TCP and WebSocket), each with 2 devices, leave nothing kept behind', async () => {
    const { d, server, connect } = await setup();
    // Each of the four ways to come and go (TCP or WebSocket, QUIT or dropped) three times: what is kept
    // behind must be nothing at all, so more rounds of the same ways would show nothing more.
    for (let round = 0; round < 12; round++) {
      const client = await connect(round % 2 === 0 ? 'tcp' : 'ws');
      const from = client.received.length;
      client.send('ADD-DEVICE', { DEVICEID: `a${round}`, ...FIFTEEN });
      client.send('ADD-DEVICE', { DEVICEID: `b${round}`, PRODUCT_NAME: 'pedal', KEYS_TOTAL: 3, KEYS_PER_ROW: 3 });
      await until(() => client.received.slice(from).filter((m) => m.name === 'ADD-DEVICE' && m.status === 'OK').length === 2, 'both devices added');
      if (round % 4 < 2) client.send('QUIT');
      else client.drop();
      await until(() => client.closed, 'the client gone');
    }
    await until(() => server.clientCount === 0, 'every client let go');
    expect(server.kept).toEqual({ clients: 0, deviceIds: 0, refusedAddresses: 0 });
    await d.until(() => d.bridge.attachedSurfaces().length === 0, 'every surface gone');
    expect(d.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('hangs up on a client silent past the idle time, and refuses addresses outside --satellite-allow', async () => {
    // Polled each second, not each 100 ms: the 9.5 s moved on here are about the client's silence, and
    // at 100 ms they were ~190 real HTTP polls and meter reads.
    const { d, server, connect } = await setup({ idleMs: 5000, pollMs: 1000 });
    const client = await connect('tcp');
    const from = client.received.length;
    client.send('ADD-DEVICE', { DEVICEID: 'quiet', ...FIFTEEN });
    await client.answer('ADD-DEVICE', from);
    await d.advance(4000);
    client.send('PING', {});
    await client.expect((m) => m.name === 'PONG', 'PONG', from);
    await d.advance(4000);
    expect(client.closed).toBe(false);
    await d.advance(1500);
    await until(() => client.closed && server.clientCount === 0, 'the silent client hung up on');
    await d.until(() => d.bridge.session('satellite:quiet') === undefined, 'its surface gone');

    const fenced = new SatelliteServer({ host: '127.0.0.1', tcpPort: 0, wsPort: 0, allow: ['10.0.0.0/8', '192.168.1.7'], log: d.log, time: d.time, version: 'test', idleMs: null });
    await fenced.listen();
    cleanups.push(() => fenced.stop());
    const outsider = await SatelliteTestClient.tcp(fenced.ports.tcp);
    await until(() => outsider.closed, 'the outsider hung up on');
    expect(outsider.received).toEqual([]);
    expect(d.log.lines.some((l) => l.level === 'warn' && l.message.includes('refused 127.0.0.1, not in --satellite-allow'))).toBe(true);
  });
});
