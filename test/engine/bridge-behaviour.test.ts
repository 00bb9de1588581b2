// The bridge's own behaviour against the simulator: pages, selection, brightness, macros, refusing
// toggles on stale data, going offline and coming back, the dialog overlay page, and pictures that are
// redrawn only when they change.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/server.js';
import { colourShare, parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { realClock } from '../../src/api/clock.js';

const RECORDING = '#D55E00';
/**
 * Tests that read the keys' pictures (or requests, logs, brightness), never an image, draw them as
 * pictures (bridge.ts, draws); the four that look at pixels or draws have the real images.
 */
const PICTURES = 'pictures' as const;

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const pictureOf = (fixture: BridgeFixture, control: string) => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;
const channelState = (fixture: BridgeFixture, control: string) => {
  const picture = pictureOf(fixture, control);
  return picture?.kind === 'channel' ? picture.state : undefined;
};

describe('pages, selection, brightness and macros', () => {
  it('page keys move between pages and the page indicator follows', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: paged
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: page }
      key4: { press: { action: page-next } }
  - name: two
    controls:
      key0: { show: page }
      key3: { press: { action: page-previous } }
      key4: { press: { action: page, page: one } }
`,
    });
    const fixture = f;
    const session = () => fixture.bridge.session('memory:test');
    expect(session()?.currentPage).toEqual({ name: 'one', number: 1, count: 2 });
    fixture.surface.press('key4');
    expect(session()?.currentPage.name).toBe('two');
    expect(pictureOf(fixture, 'key0')).toEqual({ kind: 'page', name: 'two', number: 2, count: 2 });
    fixture.surface.press('key3');
    expect(session()?.currentPage.name).toBe('one');
    fixture.surface.press('key4');
    fixture.surface.press('key4');
    expect(session()?.currentPage.name).toBe('one');
  });

  it('select-channel makes "selected" transport keys act on that channel', async () => {
    f = await startBridgeFixture({
      profile: `
name: selection
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: select-channel, channel: 5 } }
      key1: { press: { action: select-channel, channel: 6 } }
      key2: { press: { action: rec-start, channel: selected } }
      key3: { show: { channel: selected } }
`,
    });
    const fixture = f;
    fixture.surface.press('key1');
    const mark = fixture.mark();
    const sent = fixture.nextCommand('key2');
    fixture.surface.press('key2');
    expect((await sent).request).toBe('PUT /api/channels/5/rec-start');
    expect(fixture.writesSince(mark)).toEqual(['PUT /api/channels/5/rec-start']);
    expect(pictureOf(fixture, 'key1')?.overlay?.selected).toBe(true);
    expect(pictureOf(fixture, 'key0')?.overlay?.selected).toBeUndefined();
    await fixture.until(() => colourShare(fixture.surface, 'key3', RECORDING) > 0.15, 'the selected channel key to show recording');
  });

  it('brightness comes from the profile and brightness keys set and step it within 0..100', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: bright
match: { kind: memory }
brightness: 40
pages:
  - name: main
    controls:
      key0: { press: { action: brightness, step: 30 } }
      key1: { press: { action: brightness, set: 10 } }
`,
    });
    const fixture = f;
    expect(fixture.surface.brightness).toBe(40);
    fixture.surface.press('key0');
    await fixture.until(() => fixture.surface.brightness === 70, 'brightness 70');
    fixture.surface.press('key0');
    fixture.surface.press('key0');
    await fixture.until(() => fixture.surface.brightness === 100, 'brightness capped at 100');
    fixture.surface.press('key1');
    await fixture.until(() => fixture.surface.brightness === 10, 'brightness 10');
  });

  it('a macro sends its steps in order with its waits, and a failed step stops the rest', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: macro
match: { kind: memory }
pages:
  - name: main
    controls:
      key0:
        press:
          action: macro
          steps:
            - { action: sync-on, channel: 1 }
            - { action: sync-on, channel: 2 }
            - { wait: 200 }
            - { action: sync-rec-start }
      key1:
        press:
          action: macro
          steps:
            - { action: set-source, channel: 3, source: No Such Camera }
            - { action: rec-start, channel: 3 }
`,
    });
    const fixture = f;
    let mark = fixture.mark();
    fixture.surface.press('key0');
    await fixture.until(() => fixture.writesSince(mark).length === 3, 'three requests');
    expect(fixture.writesSince(mark)).toEqual(['PUT /api/channels/0/sync-on', 'PUT /api/channels/1/sync-on', 'PUT /api/channels/sync-rec-start']);
    const times = fixture.sim.log.list().filter((r) => r.seq > mark && r.method === 'PUT').map((r) => r.at);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(190);
    expect(fixture.sim.recorder().syncState().IsSyncRecording).toBe(true);

    mark = fixture.mark();
    const failed = fixture.nextCommand('key1');
    fixture.surface.press('key1');
    expect(await failed).toMatchObject({ result: 'failed', request: 'PUT /api/channels/2/set-source/No%20Such%20Camera' });
    await fixture.advance(1000);
    expect(fixture.writesSince(mark)).toEqual(['PUT /api/channels/2/set-source/No%20Such%20Camera']);
  });
});

describe('truth on the keys', () => {
  it('toggles are refused, visibly and without a request, while the state is stale; they work again once it is live', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: stale
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-toggle, channel: 1 } }
`,
    });
    const fixture = f;
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'a live idle channel');
    fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/channels', probability: 1, latencyMs: 0, status: 500 }]);
    await fixture.until(() => channelState(fixture, 'key0') === 'stale', 'the key to turn stale');
    const mark = fixture.mark();
    const refused = fixture.nextCommand('key0');
    fixture.surface.press('key0');
    expect(await refused).toMatchObject({ result: 'refused', request: null });
    expect(pictureOf(fixture, 'key0')?.overlay?.flash).toBe('refused');
    expect(fixture.writesSince(mark)).toEqual([]);
    expect(fixture.logs.some((l) => l.message.includes('rec-toggle refused'))).toBe(true);

    fixture.sim.faults.set([]);
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'the key to be live again');
    const sent = fixture.nextCommand('key0');
    fixture.surface.press('key0');
    expect(await sent).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start' });
  });

  it('a recorder that goes away turns the keys stale then offline, and the first good answer brings them back', async () => {
    f = await startBridgeFixture({
      profile: `
name: offline
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: { channel: 1 } }
`,
    });
    const fixture = f;
    await fixture.client.recStart(0);
    await fixture.until(() => channelState(fixture, 'key0') === 'recording', 'recording');
    const { port, token } = fixture.sim;
    await fixture.sim.close();
    const states = new Set<string>();
    await fixture.until(() => {
      states.add(channelState(fixture, 'key0') ?? '');
      return channelState(fixture, 'key0') === 'offline';
    }, 'offline', 5000);
    expect(states.has('stale')).toBe(true);
    // Offline is drawn mostly black, unlike the recording colour.
    await fixture.until(() => colourShare(fixture.surface, 'key0', RECORDING) < 0.01 && colourShare(fixture.surface, 'key0', '#000000', 30) > 0.4, 'the offline look');

    const again = await startSimulator({ clock: realClock, port, token, tickMs: 0 });
    try {
      await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'back live after the restart', 8000);
      expect(fixture.logs.some((l) => l.message.includes('not answering'))).toBe(true);
      expect(fixture.logs.some((l) => l.message.includes('answering') && !l.message.includes('not answering'))).toBe(true);
    } finally {
      await again.close();
    }
  }, 20_000);

  it('previews are fetched only for channels a visible key shows, and follow the page', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: previews
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1, thumbnail: true } }
      key1: { show: { channel: 2 } }
      key4: { press: { action: page-next } }
  - name: two
    controls:
      key0: { show: { channel: 3, thumbnail: true } }
      key4: { press: { action: page-next } }
`,
    });
    const fixture = f;
    const previews = (since: number) => new Set(fixture.sim.log.list().filter((r) => r.seq > since && r.path.endsWith('/preview')).map((r) => r.path));
    let mark = fixture.mark();
    await fixture.until(() => previews(mark).size > 0, 'a preview fetch');
    await fixture.advance(1100); // two more rounds at 500 ms
    expect([...previews(mark)]).toEqual(['/api/channels/0/preview']);
    await fixture.until(() => (pictureOf(fixture, 'key0') as { thumbnail?: string | null }).thumbnail !== null, 'the preview on the key');

    fixture.surface.press('key4');
    await fixture.settle(); // a round in flight finishes
    mark = fixture.mark();
    await fixture.advance(1100);
    expect([...previews(mark)]).toEqual(['/api/channels/2/preview']);
  });

  it('previews never pile up: two under way at most, one per channel at a time, slower as the recorder slows, and the state polls keep their pace', async () => {
    const keys = Array.from({ length: 15 }, (_, i) => `      key${i}: { show: { channel: ${i + 1}, thumbnail: true } }`).join('\n');
    // Still previews: fetched as often (what this is about), and what they show is not read; a moving one
    // was encoded by the simulator at every fetch and decoded by the bridge.
    f = await startBridgeFixture({ draws: PICTURES, simulator: { stillPreviews: true }, profile: `name: many\nmatch: { kind: memory }\npages:\n  - name: all\n    controls:\n${keys}\n` });
    const fixture = f;
    fixture.requests.latencyMs = 150; // every answer arrives 150 ms after its request left
    await fixture.advance(1000);
    const mark = fixture.mark();
    const start = fixture.now();
    await fixture.advance(2000);
    const fetches = fixture.sim.log.list().filter((r) => r.seq > mark && r.path.endsWith('/preview'));
    expect(fixture.requests.peak('/api/channels/{index}/preview')).toBe(2);
    // 2 at a time, 150 ms each: the 15 channels served in turn, none twice within twice its fetch time.
    expect(fetches.length).toBeGreaterThanOrEqual(15);
    const byChannel = new Map<string, number[]>();
    for (const r of fetches) byChannel.set(r.path, [...(byChannel.get(r.path) ?? []), r.at]);
    expect(byChannel.size).toBe(15);
    for (const times of byChannel.values()) times.slice(1).forEach((t, i) => expect(t - (times[i] as number)).toBeGreaterThanOrEqual(300));
    // The state polls went on at their pace (100 ms + 150 ms answers) and the keys stayed live.
    const polls = fixture.sim.log.list().filter((r) => r.seq > mark && r.path === '/api/channels').length;
    expect(polls).toBeGreaterThanOrEqual(7);
    expect(fixture.now() - start).toBe(2000);
    expect(channelState(fixture, 'key0')).toBe('idle');
  });

  it('a clock ticks every second even when the recorder is polled every 2 s', async () => {
    f = await startBridgeFixture({ draws: PICTURES, profile: 'name: slow\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n', pollMs: 2000 });
    const fixture = f;
    await fixture.client.recStart(0);
    await fixture.until(() => channelState(fixture, 'key0') === 'recording', 'recording', 5000);
    const seen: number[] = [];
    for (let elapsed = 0; elapsed < 3500; elapsed += 50) {
      const picture = pictureOf(fixture, 'key0');
      const duration = picture?.kind === 'channel' ? picture.durationS : null;
      if (duration !== null && duration !== seen.at(-1)) seen.push(duration);
      await fixture.advance(50);
    }
    // Every second shown, in order, one step at a time, between polls 2 s apart.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every((d, i) => i === 0 || d === (seen[i - 1] as number) + 1)).toBe(true);
  }, 15_000);

  it('a recorder answering in a form the bridge cannot read turns the keys stale and says what was wrong', async () => {
    f = await startBridgeFixture({ draws: PICTURES, profile: 'name: m\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n' });
    const fixture = f;
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'idle');
    fixture.sim.faults.set([{ kind: 'malformed', method: 'GET', path: '/api/channels', probability: 1, latencyMs: 0, status: 500 }]);
    await fixture.until(() => channelState(fixture, 'key0') === 'stale', 'stale');
    await fixture.until(() => fixture.logs.some((l) => l.message.includes('answering with errors')), 'the log line');
    const line = fixture.logs.find((l) => l.message.includes('answering with errors'))?.message ?? '';
    expect(line).toMatch(/GET \/api\/channels/);
    expect(line).not.toContain(fixture.sim.token);
    await fixture.advance(500);
    expect(channelState(fixture, 'key0')).toBe('stale'); // never offline: the recorder is there
    fixture.sim.faults.set([]);
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'live again');
  });

  it('the dialog overlay page replaces the page while a dialog is up and the page comes back after', async () => {
    f = await startBridgeFixture({
      draws: PICTURES,
      profile: `
name: overlay
match: { kind: memory }
overlays: { dialog: dialog }
pages:
  - name: main
    controls:
      key0: { show: { channel: 1 } }
  - name: dialog
    controls:
      key0: { show: dialog }
      key13: { show: dialog-cancel, press: { action: dialog-cancel } }
      key14: { show: dialog-ok, press: { action: dialog-ok } }
`,
    });
    const fixture = f;
    const session = () => fixture.bridge.session('memory:test');
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'the main page');
    await fixture.raw('POST', '/_sim/dialog', { body: JSON.stringify({ content: 'Disk almost full', buttons: 'OK' }) });
    await fixture.until(() => session()?.currentPage.name === 'dialog', 'the overlay page');
    expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'dialog', role: 'message', active: true, text: 'Disk almost full', offersCancel: false });
    const answered = fixture.nextCommand('key14');
    fixture.surface.press('key14');
    expect(await answered).toMatchObject({ result: 'ok', request: 'PUT /api/app/dialog/ok' });
    await fixture.until(() => session()?.currentPage.name === 'main', 'the page back');
    expect(channelState(fixture, 'key0')).toBe('idle');
  });

  it('a key is drawn again only when its picture changes', async () => {
    f = await startBridgeFixture({
      profile: `
name: quiet
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: { channel: 1 } }
      key1: { show: { label: Hello } }
`,
    });
    const fixture = f;
    await fixture.until(() => channelState(fixture, 'key0') === 'idle', 'idle');
    expect(pictureOf(fixture, 'key0')?.overlay).toBeUndefined(); // no selection frame: this profile selects nothing
    await fixture.advance(300);
    const draws = fixture.surface.draws;
    await fixture.advance(600); // several polls and frames, nothing changes
    expect(fixture.surface.draws).toBe(draws);
    await fixture.client.recStart(0);
    await fixture.until(() => fixture.surface.draws > draws, 'a redraw after the change');
    const drawnKeys = new Set<string>();
    fixture.surface.output.drawn$.subscribe((item) => item.type === 'image' && drawnKeys.add(item.control));
    await fixture.advance(1200); // the duration ticks on key0 only
    expect([...drawnKeys]).toEqual(['key0']);
  });

  it('stopping the bridge blanks every display on the surface', async () => {
    f = await startBridgeFixture({ profile: 'name: a\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n      key1: { show: { label: A } }\n' });
    const fixture = f;
    await fixture.until(() => fixture.surface.images.has('key0') && fixture.surface.images.has('key1'), 'the keys drawn');
    await fixture.stopBridge();
    for (const control of fixture.surface.controls) {
      const image = fixture.surface.images.get(control.id);
      expect(image?.data.every((byte) => byte === 0), control.id).toBe(true);
    }
  });

  it('a profile reloaded with a new page keeps the surface running on the new bindings', async () => {
    f = await startBridgeFixture({ draws: PICTURES, profile: 'name: a\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { label: A } }\n' });
    const fixture = f;
    fixture.bridge.setProfiles([parseTestProfile('name: a\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: rec-start, channel: 2 } }\n')]);
    const sent = fixture.nextCommand('key0');
    fixture.surface.press('key0');
    expect(await sent).toMatchObject({ request: 'PUT /api/channels/1/rec-start' });
  });
});
