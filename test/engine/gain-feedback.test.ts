// A gain this bridge writes is shown on every surface at once, not at their next frame and not when the
// recorder answers: a dial turned on one deck moves the fader level on another while the write is still
// on its way. (Fetched previews and levels wait for the next frame; a gain write does not.)
import { afterEach, expect, it } from 'vitest';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { realTime } from '../../src/engine/engine-time.js';

/** Frames come every 100 ms (surface-session's FRAME_MS); a write's refresh within 10 ms. */
const FRAME_MS = 100;

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

it('a dial step shows on another surface before the recorder answers, between two of its frames', async () => {
  const dialProfile = 'name: dial\nmatch: { kind: memory, model: test-15 }\npages:\n  - name: main\n    controls:\n      dial0: { show: { meter: 1 }, turn: { action: gain-step, channel: 1, db: 1 } }\n';
  const faderProfile = 'name: fader\nmatch: { kind: memory, model: fader }\npages:\n  - name: main\n    controls:\n      fader0: { show: { meter: 1 }, fader: { action: gain-fader, channel: 1, min: -60, max: 12 } }\n';
  // Polls every 5 s: nothing but frames and the write itself redraws the fader's surface meanwhile.
  f = await startBridgeFixture({ profile: dialProfile, pollMs: 5000, controls: [{ kind: 'encoder', id: 'dial0', pressable: false, ring: true }] });
  const fixture = f;
  fixture.bridge.setProfiles([parseTestProfile(dialProfile, 'dial.yaml'), parseTestProfile(faderProfile, 'fader.yaml')]);
  await fixture.until(() => fixture.bridge.recorderStates()[0]?.sources !== null, 'the first slow poll');
  const added = fixture.now();
  const mirror = new MemorySurface({ time: realTime, id: 'memory:fader', model: 'fader', controls: [{ kind: 'fader', id: 'fader0', motorised: false }] });
  fixture.bridge.addSurface(mirror);
  await fixture.until(() => mirror.levels.has('fader0') && fixture.surface.levels.has('dial0'), 'both surfaces to show the gain');
  const before = mirror.levels.get('fader0') as number;

  // Just after one of the mirror's frames, with the recorder 500 ms away.
  await fixture.advance(FRAME_MS - ((fixture.now() - added) % FRAME_MS) + 1);
  fixture.requests.latencyMs = 500;
  fixture.surface.rotate('dial0', 2);
  await fixture.advance(30); // the write's refresh is due in 10 ms; the mirror's next frame in 99
  expect(mirror.levels.get('fader0')).toBeCloseTo(before + 2 / 72, 5); // 2 dB on -60..12
  expect(fixture.commands.filter((c) => c.control === 'dial0')).toHaveLength(0); // still unanswered
});
