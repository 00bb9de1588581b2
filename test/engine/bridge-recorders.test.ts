// Several recorders in one setup: a binding (or an action) picks one by name; the first is the default.
import { afterEach, describe, expect, it } from 'vitest';
import { firstValueFrom, filter } from 'rxjs';
import { RecorderClient } from '../../src/api/client.js';
import { Bridge } from '../../src/engine/bridge.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import { parseTestProfile } from '../support/bridge.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const writes = (sim: RunningSimulator) => sim.log.list().filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('several recorders', () => {
  it('sends each command to the recorder its binding or action names, and the rest to the first', async () => {
    const main = await startSimulator({ port: 0, tickMs: 0, grid: 4 });
    const backup = await startSimulator({ port: 0, tickMs: 0, grid: 4 });
    const clients = [new RecorderClient({ url: main.url, token: main.token }), new RecorderClient({ url: backup.url, token: backup.token })];
    const bridge = new Bridge({
      recorders: [
        { name: 'main', client: clients[0] as RecorderClient },
        { name: 'backup', client: clients[1] as RecorderClient },
      ],
      renderer: (thumbnails) => pictureRenderer({ thumbnails }),
      decodeThumbnail,
      log: quiet,
      pollMs: 100,
    });
    cleanup.push(async () => {
      await bridge.stop();
      for (const client of clients) await client.close();
      await main.close();
      await backup.close();
    });
    const surface = new MemorySurface({ id: 'memory:two', model: 'test', controls: keyGrid(1, 4, 72) });
    bridge.start();
    bridge.setProfiles([
      parseTestProfile(`
name: two
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-start, channel: 1 } }
      key1: { recorder: backup, press: { action: rec-start, channel: 2 } }
      key2: { press: { action: rec-start, channel: 3, recorder: backup } }
      key3: { press: { action: rec-start, channel: 4, recorder: nowhere } }
`),
    ]);
    bridge.addSurface(surface);
    for (const key of ['key0', 'key1', 'key2']) {
      const done = firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === key)));
      surface.press(key);
      expect(await done).toMatchObject({ result: 'ok' });
    }
    expect(writes(main)).toEqual(['PUT /api/channels/0/rec-start']);
    expect(writes(backup)).toEqual(['PUT /api/channels/1/rec-start', 'PUT /api/channels/2/rec-start']);
    expect(bridge.recorderStates().map((s) => s.name)).toEqual(['main', 'backup']);
    // A name no recorder has: refused, visibly, with the reason; nothing is sent anywhere.
    const refused = firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === 'key3')));
    surface.press('key3');
    expect(await refused).toMatchObject({ result: 'refused', request: null, message: 'no recorder named "nowhere"' });
    expect(writes(main)).toHaveLength(1);
    expect(writes(backup)).toHaveLength(2);
  });
});
