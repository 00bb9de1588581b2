// `recdeck run --mqtt` end to end through startBridge: one run holds the recorder's URL and token and
// publishes it; another knows only `main@mqtt` and drives a surface from the bus.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { busSettings, splitBusRecorders } from '../../src/cli/bus-setup.js';
import { parseRunArgs, startBridge, type RunningBridge } from '../../src/cli/run.js';
import type { Logger } from '../../src/engine/log.js';
import { keyGrid } from '../../src/engine/surface.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { PANEL_PROFILE, startSimulator, until } from '../support/facility.js';
import { startBroker } from '../support/mosquitto.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('recdeck run --mqtt', () => {
  it('a panel run with main@mqtt shows and drives the recorder a poller run publishes', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.close());
    const sim = await startSimulator();
    cleanups.push(() => sim.close());
    const folder = await mkdtemp(join(tmpdir(), 'recdeck-bus-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeFile(join(folder, 'panel.yaml'), PANEL_PROFILE);
    const mqtt = { url: broker.url };
    const start = async (recorderFlags: string[], env: NodeJS.ProcessEnv, surfaces: MemorySurface[]) => {
      const running: RunningBridge = await startBridge({ recorderFlags, tokenFlags: [], profilePaths: [folder], pollMs: 100, env, web: null, surfaces, sources: [], mqtt }, quiet);
      cleanups.push(() => running.stop());
      return running;
    };
    await start([sim.sim.url], { RECDECK_TOKEN: sim.sim.token }, []);
    const surface = new MemorySurface({ id: 'memory:panel', model: 'test-15', controls: keyGrid(3, 5, 72) });
    const panel = await start(['main@mqtt'], {}, [surface]);
    expect(panel.simulator).toBeNull();
    const channel = () => {
      const picture = panel.bridge.session('memory:panel')?.describeControls().find((c) => c.control.id === 'key0')?.picture;
      return picture?.kind === 'channel' ? picture.state : undefined;
    };
    await until(() => channel() === 'idle', 'the panel live from the bus');
    const command = panel.bridge.commands$;
    const done = new Promise((resolve) => command.subscribe((record) => resolve(record)));
    surface.down('key0');
    surface.up('key0');
    expect(await done).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start' });
    await until(() => channel() === 'recording', 'the take on the panel');
    expect(sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);
  });

  it('says what is wrong with the bus settings', () => {
    expect(() => busSettings('http://broker:1883', {})).toThrow('--mqtt: expected an mqtt:// or mqtts:// URL, got http:');
    expect(() => busSettings('mqtt://me:secret@broker:1883', {})).toThrow(/RECDECK_MQTT_USER/);
    expect(() => splitBusRecorders(['main@mqtt'], null)).toThrow('--recorder main@mqtt: a recorder on the bus needs --mqtt URL (or RECDECK_MQTT)');
    expect(() => splitBusRecorders(['a/b@mqtt'], { url: 'mqtt://x' })).toThrow(/letters, digits/);
    expect(busSettings(undefined, { RECDECK_MQTT: 'mqtts://broker:8883', RECDECK_MQTT_USER: 'deck', RECDECK_MQTT_PASSWORD: 'pw' })).toEqual({ url: 'mqtts://broker:8883', username: 'deck', password: 'pw' });
    expect(parseRunArgs(['--mqtt', 'mqtt://127.0.0.1:1883', '--recorder', 'main@mqtt'], {}).mqtt).toEqual({ url: 'mqtt://127.0.0.1:1883' });
  });
});
