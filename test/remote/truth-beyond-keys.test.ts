// Truth beyond the keys: what the page, GET /state, /readyz and /metrics say about the recorder is as
// true as what the keys show, read on the engine's clock. The real bridge on virtual time against the
// simulator over real HTTP, with the remote server in front of it.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import { freshnessOf, type RecorderState } from '../../src/engine/recorder-state.js';
import type { ChannelView, StateView } from '../../src/remote/state-view.js';
import { parseTestProfile } from '../support/bridge.js';
import { startVirtualRemote, type VirtualRemote } from '../support/virtual-remote.js';

let r: VirtualRemote | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const profile = (controls: string) => `name: t\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n${controls}\n`;
const pictureOf = (remote: VirtualRemote, control: string): Picture | undefined => remote.f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;
const channelOf = (state: StateView, number: number): ChannelView | undefined => state.recorders[0]?.channels.find((c) => c.number === number);

const freshness = (remote: VirtualRemote) => freshnessOf(remote.f.bridge.recorderStates()[0] as RecorderState, remote.f.now());

/** One sample of a metric family by its recorder label, from the exposition text. */
async function metric(remote: VirtualRemote, name: string, recorder = 'main'): Promise<number> {
  const { text } = await remote.get('/metrics');
  const line = text.split('\n').find((l) => l.startsWith(`${name}{recorder="${recorder}"} `));
  if (line === undefined) throw new Error(`no ${name} for ${recorder} in /metrics`);
  return Number(line.split(' ')[1]);
}

/** What GET /state and a page that connects now are told, which must be the same. */
async function stateNow(remote: VirtualRemote): Promise<StateView> {
  const { json } = await remote.get('/state');
  const page = await remote.pageState();
  expect(page.recorders).toEqual((json as StateView).recorders);
  return json as StateView;
}

const KEY0 = profile('      key0: { show: { channel: 1 } }');
/**
 * The bridge with key0 showing channel 1 and the remote server, as `r` (closed after each test). The
 * simulator has the smallest grid that has channel 1 (4): what is told about channel 1 is the point. The
 * keys are drawn as pictures (bridge.ts, draws): the tests read pictures, /state, /metrics, never an image.
 */
const start = async (more: Omit<Parameters<typeof startVirtualRemote>[0], 'profile'> = {}): Promise<VirtualRemote> => (r = await startVirtualRemote({ profile: KEY0, simulator: { grid: 4 }, draws: 'pictures', ...more }));
/** Channel 1 recording for 5 s of virtual time. */
async function recordFiveSeconds(remote: VirtualRemote): Promise<void> {
  await remote.f.client.recStart(0);
  await remote.f.advance(5000);
}

// The waits for a recorder to go offline or come back look every 100 ms of virtual time (what falls due in
// between runs all the same; no figure read after them depends on the moment they are seen).
const channelErrors = { kind: 'status', method: 'GET', path: '/api/channels', status: 500, probability: 1, latencyMs: 0 } as const;
const unreachable = { kind: 'reset', path: '/api', probability: 1, latencyMs: 0, status: 500 } as const;

describe('one clock: the page, GET /state and /metrics read the engine\'s time', () => {
  it('under virtual time they agree with the keys: live, then stale with one age', async () => {
    const remote = await start();
    await recordFiveSeconds(remote);
    expect(pictureOf(remote, 'key0')).toMatchObject({ kind: 'channel', state: 'recording', durationS: 5, ageS: null });
    let state = await stateNow(remote);
    expect(state.recorders[0]).toMatchObject({ name: 'main', freshness: 'live', ageS: 0 });
    expect(channelOf(state, 1)).toMatchObject({ state: 'recording', durationS: 5, freshness: 'live', ageS: 0 });
    expect(await metric(remote, 'recdeck_recorder_live')).toBe(1);
    expect(await metric(remote, 'recdeck_recorder_data_age_seconds')).toBeLessThan(0.3);

    remote.f.sim.faults.set([channelErrors]);
    await remote.f.advance(4000);
    expect(pictureOf(remote, 'key0')).toMatchObject({ kind: 'channel', state: 'stale', durationS: 5, ageS: 4 });
    state = await stateNow(remote);
    expect(state.recorders[0]).toMatchObject({ freshness: 'stale', ageS: 4 });
    expect(channelOf(state, 1)).toMatchObject({ state: 'stale', durationS: 5, freshness: 'stale', ageS: 4 });
    expect(await metric(remote, 'recdeck_recorder_live')).toBe(0);
    expect(Math.floor(await metric(remote, 'recdeck_recorder_data_age_seconds'))).toBe(4);
  }, 30_000);
});

describe("a take's duration beyond the keys", () => {
  it('a recorder gone offline: GET /state and the page freeze the duration beside its age, as the key does', async () => {
    const remote = await start();
    await recordFiveSeconds(remote);
    remote.f.sim.faults.set([unreachable]);
    await remote.f.until(() => (pictureOf(remote, 'key0') as { state?: string }).state === 'offline', 'the key to show offline', 10_000, 100);
    for (const later of [8000, 5000]) {
      await remote.f.advance(later);
      const key = pictureOf(remote, 'key0') as { durationS: number; ageS: number };
      expect(key).toMatchObject({ kind: 'channel', state: 'offline', durationS: 5 });
      const state = await stateNow(remote);
      expect(channelOf(state, 1)).toMatchObject({ state: 'offline', durationS: 5, freshness: 'offline', ageS: key.ageS });
    }
    expect((pictureOf(remote, 'key0') as { ageS: number }).ageS).toBeGreaterThanOrEqual(13);
  }, 30_000);
});

describe('GET /readyz and recdeck_recorder_up', () => {
  it('200 while the recorder in use is live; 503 with the reason when it answers badly or not at all; /healthz stays 200', async () => {
    const remote = await start();
    await remote.f.advance(1000);
    expect(await remote.get('/readyz')).toMatchObject({ status: 200, json: { ready: true, recorders: [{ name: 'main', freshness: 'live', ageS: 0, reason: null }] } });
    expect(await metric(remote, 'recdeck_recorder_up')).toBe(1);

    remote.f.sim.faults.set([channelErrors]);
    await remote.f.advance(2000);
    const stale = await remote.get('/readyz');
    expect(stale).toMatchObject({ status: 503, json: { ready: false, recorders: [{ name: 'main', freshness: 'stale', ageS: 2 }] } });
    expect((stale.json as { recorders: Array<{ reason: string }> }).recorders[0]?.reason).toMatch(/^stale: data 2 s old: GET \/api\/channels failed with 500/);
    expect(await metric(remote, 'recdeck_recorder_up')).toBe(0);
    expect(await remote.get('/healthz')).toMatchObject({ status: 200, json: { ok: true } });

    remote.f.sim.faults.set([unreachable]);
    await remote.f.until(() => freshness(remote) === 'offline', 'the recorder to count as offline', 10_000, 100);
    const offline = await remote.get('/readyz');
    expect(offline).toMatchObject({ status: 503, json: { ready: false, recorders: [{ name: 'main', freshness: 'offline' }] } });
    expect((offline.json as { recorders: Array<{ reason: string }> }).recorders[0]?.reason).toMatch(/^offline: not reachable: GET \/api\/\S+ failed \(network\)/);
    expect(await metric(remote, 'recdeck_recorder_up')).toBe(0);
    expect(await remote.get('/healthz')).toMatchObject({ status: 200, json: { ok: true, recorders: [{ name: 'main', freshness: 'offline' }] } });

    remote.f.sim.faults.set([]);
    await remote.f.until(() => freshness(remote) === 'live', 'the recorder back', 10_000, 100);
    expect(await remote.get('/readyz')).toMatchObject({ status: 200, json: { ready: true } });
    expect(await metric(remote, 'recdeck_recorder_up')).toBe(1);
  }, 30_000);

  it('a recorder that refuses the token: 503 saying so, up 0, the process healthy', async () => {
    const remote = await start({ token: 'perm:00000000-0000-4000-8000-000000000000' });
    await remote.f.advance(1000);
    const answer = await remote.get('/readyz');
    expect(answer).toMatchObject({ status: 503, json: { ready: false, recorders: [{ name: 'main', freshness: 'offline', ageS: null }] } });
    expect((answer.json as { recorders: Array<{ reason: string }> }).recorders[0]?.reason).toMatch(/^offline: never answered well: GET \/api\/\S+ failed with 401 \(status\): Authorization token is not valid/);
    expect(await metric(remote, 'recdeck_recorder_up')).toBe(0);
    expect(await remote.get('/healthz')).toMatchObject({ status: 200, json: { ok: true } });
  });

  it('waits only for the recorders the bound profiles use; a name no recorder has is a reason too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const remote = await start({ moreRecorders: [{ name: 'backup', url: `http://127.0.0.1:${port}`, token: 'perm:00000000-0000-4000-8000-000000000000' }] });
    await remote.f.advance(1000);
    expect(remote.f.bridge.recorderStates().map((s) => s.name)).toEqual(['main', 'backup']);
    expect(await remote.get('/readyz')).toMatchObject({ status: 200, json: { ready: true, recorders: [{ name: 'main', freshness: 'live' }] } });
    expect(await metric(remote, 'recdeck_recorder_up', 'backup')).toBe(0);

    remote.f.bridge.setProfiles([parseTestProfile(profile('      key0: { show: { channel: 1 } }\n      key1: { press: { action: rec-start, channel: 2, recorder: backup } }\n      key2: { recorder: nowhere, show: status }'))]);
    const answer = await remote.get('/readyz');
    expect(answer.status).toBe(503);
    const recorders = (answer.json as { recorders: Array<{ name: string; freshness: string | null; reason: string | null }> }).recorders;
    expect(recorders.map((x) => [x.name, x.freshness])).toEqual([
      ['main', 'live'],
      ['backup', 'offline'],
      ['nowhere', null],
    ]);
    expect(recorders[1]?.reason).toMatch(/^offline: not reachable: GET \/api\/\S+ failed \(network\)/);
    expect(recorders[2]?.reason).toMatch(/^no recorder is configured by this name/);
  });

  it('behind the same password as the rest of the API', async () => {
    const remote = await start({ password: 'correct horse' });
    await remote.f.advance(1000);
    expect((await remote.get('/readyz')).status).toBe(401);
    expect(await remote.get('/readyz', { authorization: 'Bearer correct horse' })).toMatchObject({ status: 200, json: { ready: true } });
  });
});
