// Truth beyond the keys: what the page, GET /state and /metrics say about the recorder is as
// true as what the keys show, read on the engine's clock. The real bridge on virtual time against the
// simulator over real HTTP, with the remote server in front of it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import type { ChannelView, StateView } from '../../src/remote/state-view.js';
import { startVirtualRemote, type VirtualRemote } from '../support/virtual-remote.js';

let r: VirtualRemote | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const profile = (controls: string) => `name: t\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n${controls}\n`;
const pictureOf = (remote: VirtualRemote, control: string): Picture | undefined => remote.f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;
const channelOf = (state: StateView, number: number): ChannelView | undefined => state.recorders[0]?.channels.find((c) => c.number === number);

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

const channelErrors = { kind: 'status', method: 'GET', path: '/api/channels', status: 500, probability: 1, latencyMs: 0 } as const;
const unreachable = { kind: 'reset', path: '/api', probability: 1, latencyMs: 0, status: 500 } as const;

describe('one clock: the page, GET /state and /metrics read the engine\'s time', () => {
  it('under virtual time they agree with the keys: live, then stale with one age', async () => {
    r = await startVirtualRemote({ profile: profile('      key0: { show: { channel: 1 } }') });
    const remote = r;
    await remote.f.client.recStart(0);
    await remote.f.advance(5000);
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
  });
});

describe("a take's duration beyond the keys", () => {
  it('a recorder gone offline: GET /state and the page freeze the duration beside its age, as the key does', async () => {
    r = await startVirtualRemote({ profile: profile('      key0: { show: { channel: 1 } }') });
    const remote = r;
    await remote.f.client.recStart(0);
    await remote.f.advance(5000);
    remote.f.sim.faults.set([unreachable]);
    await remote.f.until(() => (pictureOf(remote, 'key0') as { state?: string }).state === 'offline', 'the key to show offline', 10_000);
    for (const later of [8000, 5000]) {
      await remote.f.advance(later);
      const key = pictureOf(remote, 'key0') as { durationS: number; ageS: number };
      expect(key).toMatchObject({ kind: 'channel', state: 'offline', durationS: 5 });
      const state = await stateNow(remote);
      expect(channelOf(state, 1)).toMatchObject({ state: 'offline', durationS: 5, freshness: 'offline', ageS: key.ageS });
    }
    expect((pictureOf(remote, 'key0') as { ageS: number }).ageS).toBeGreaterThanOrEqual(13);
  }, 20_000);
});
