// Keys that say how to use them and what went wrong, end to end against the simulator (issue 13): the
// recorder's refusal on the key that failed, the gesture mark from the binding, and HOLD after a
// tap on a hold-to-confirm key.
import { afterEach, expect, it } from 'vitest';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const PROFILE = `
name: marks
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-pause, channel: 2 } }
      key1: { press: { action: new-session }, confirm: { hold: 1500 } }
      key2: { press: { action: new-session }, confirm: { double: 600 } }
`;

const overlayOf = (fixture: BridgeFixture, control: string) => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture.overlay;

it('a refused command shows the recorder\'s reason; hold and double-press keys carry their mark; a tap on a hold key shows HOLD', async () => {
  f = await startBridgeFixture({ profile: PROFILE });
  const fixture = f;
  await fixture.until(() => fixture.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
  expect(overlayOf(fixture, 'key0')).toBeUndefined();
  expect(overlayOf(fixture, 'key1')).toEqual({ gesture: 'hold' });
  expect(overlayOf(fixture, 'key2')).toEqual({ gesture: 'double' });

  const failed = fixture.nextCommand('key0');
  fixture.surface.press('key0'); // channel 2 is not recording: the simulator refuses the pause
  expect(await failed).toMatchObject({ result: 'failed', message: 'Channel 2 is not recording; there is nothing to pause' });
  await fixture.until(() => overlayOf(fixture, 'key0')?.flash === 'failed', 'the failure on the key');
  expect(overlayOf(fixture, 'key0')).toEqual({ flash: 'failed', reason: 'Channel 2 is not recording; there is nothing to pause', reasonPage: 0 });

  fixture.surface.press('key1'); // a tap: let go long before the 1.5 s hold
  await fixture.until(() => overlayOf(fixture, 'key1')?.hint === 'hold', 'HOLD on the key');
  await fixture.advance(1100);
  expect(overlayOf(fixture, 'key1')).toEqual({ gesture: 'hold' });
});
