// Several recorders in one setup: a binding (or an action) picks one by name; the first is the default.
// Both simulators and the bridge run on one virtual time.
import { afterEach, describe, expect, it } from 'vitest';
import { keyGrid } from '../../src/engine/surface.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { VirtualTime } from '../support/virtual-time.js';

const PROFILE = `
name: two
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-start, channel: 1 } }
      key1: { recorder: backup, press: { action: rec-start, channel: 2 } }
      key2: { press: { action: rec-start, channel: 3, recorder: backup } }
      key3: { press: { action: rec-start, channel: 4, recorder: nowhere } }
`;

let f: BridgeFixture | undefined;
let backup: SimulatorFixture | undefined;
afterEach(async () => {
  await f?.close();
  await backup?.close();
  f = undefined;
  backup = undefined;
});

const writes = (fixture: SimulatorFixture) => fixture.sim.log.list().filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('several recorders', () => {
  it('sends each command to the recorder its binding or action names, and the rest to the first', async () => {
    const time = new VirtualTime();
    const second = await startFixture({ clock: time, grid: 4 });
    backup = second;
    const fixture = await startBridgeFixture({ profile: PROFILE, controls: keyGrid(1, 4, 72), simulator: { grid: 4 }, moreRecorders: [{ name: 'backup', url: second.sim.url, token: second.sim.token }], time });
    f = fixture;
    await fixture.until(() => fixture.bridge.recorderStates().every((s) => s.channels !== null), 'both recorders read');
    for (const key of ['key0', 'key1', 'key2']) {
      const done = fixture.nextCommand(key);
      fixture.surface.press(key);
      expect(await done).toMatchObject({ result: 'ok' });
    }
    expect(writes(fixture)).toEqual(['PUT /api/channels/0/rec-start']);
    expect(writes(second)).toEqual(['PUT /api/channels/1/rec-start', 'PUT /api/channels/2/rec-start']);
    expect(fixture.bridge.recorderStates().map((s) => s.name)).toEqual(['main', 'backup']);
    // A name no recorder has: refused, visibly, with the reason; nothing is sent anywhere.
    const refused = fixture.nextCommand('key3');
    fixture.surface.press('key3');
    expect(await refused).toMatchObject({ result: 'refused', request: null, message: 'no recorder named "nowhere"' });
    expect(writes(fixture)).toHaveLength(1);
    expect(writes(second)).toHaveLength(2);
  });
});
