// e2e because Mosquitto is the part: two bridges wired as `recdeck run --mqtt` wires them (in this
// process, through startBridge: the process itself is not what is shown) find each other only through a
// real broker. `recdeck run --mqtt` end to end through startBridge: one run holds the recorder's URL and token and
// publishes it; another knows only `main@mqtt` and drives a surface from the bus. Both know who they are
// from a facility file and a key file that `recdeck bus keygen` made.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { bus } from '../../src/cli/bus-keys.js';
import { busSettings, splitBusRecorders, type BusSettings } from '../../src/cli/bus-settings.js';
import { parseRunArgs, startBridge, type RunningBridge } from '../../src/cli/run.js';
import { keyGrid } from '../../src/engine/surface.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { PANEL_PROFILE, handLeaseOverAs, keygen, keptLog, startSimulator, until } from '../support/facility.js';
import { startBroker } from '../support/mosquitto.js';
import { until as waitUntil } from '../support/until.js';
import { realTime } from '../../src/engine/engine-time.js';

async function tempFolder(test: TestContext): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-bus-'));
  test.onTestFinished(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

const bare = (url: string): BusSettings => ({ url, facility: null, id: 'x', tls: {}, keepaliveS: 5, monitor: null });

// The tests start their own brokers and bridges, and run side by side.
describe.concurrent('recdeck run --mqtt', () => {
  it('a panel run with main@mqtt shows and drives the recorder a poller run publishes; the poller audits the command', async (test) => {
    // Broker, simulator and folder side by side (each waits on a process or a socket, not on the others);
    // each closed when the test finishes, also when another failed to start.
    const closedAtEnd = <T extends { close: () => Promise<void> }>(thing: T): T => (test.onTestFinished(() => thing.close()), thing);
    const starting = [startBroker().then(closedAtEnd), startSimulator().then(closedAtEnd), tempFolder(test)] as const;
    await Promise.allSettled(starting);
    const [broker, sim, folder] = await Promise.all(starting);
    await writeFile(join(folder, 'panel.yaml'), PANEL_PROFILE);
    const pollerKey = await keygen(folder, 'poller-main');
    const panelKey = await keygen(folder, 'desk-1');
    // A poller that hands the lease to poller-main as it starts (it need not wait out a TTL first).
    const handoverKey = await keygen(folder, 'poller-handover');
    const facility = join(folder, 'facility.yaml');
    await writeFile(facility, `pollers:\n  poller-main:\n    publicKey: ${pollerKey}\n    recorders: [main]\n  poller-handover:\n    publicKey: ${handoverKey}\n    recorders: [main]\npanels:\n  desk-1:\n    publicKey: ${panelKey}\n    may: { main: [read, control] }\n`);
    await handLeaseOverAs(broker, sim, 500, { id: 'poller-handover', keyFile: join(folder, 'poller-handover.pem'), facilityFile: facility });
    const audit = join(folder, 'audit.jsonl');
    const logs: string[][] = [];
    const start = async (args: string[], env: NodeJS.ProcessEnv, surfaces: MemorySurface[]) => {
      const options = parseRunArgs([...args, '--mqtt', broker.url, '--mqtt-facility', facility, '--profile', join(folder, 'panel.yaml'), '--poll-ms', '500', '--no-web'], env);
      const log = keptLog();
      logs.push(log.lines);
      const running: RunningBridge = await startBridge({ ...options, surfaces, sources: [] }, log);
      test.onTestFinished(() => running.stop());
      return running;
    };
    const surface = new MemorySurface({ time: realTime, id: 'memory:panel', model: 'test-15', controls: keyGrid(3, 5, 72) });
    // Started side by side: the panel shows what the poller publishes whenever it comes.
    const [, panel] = await Promise.all([
      start(['--recorder', sim.sim.url, '--mqtt-id', 'poller-main', '--mqtt-key-file', join(folder, 'poller-main.pem'), '--audit-file', audit], { RECDECK_TOKEN: sim.sim.token }, []),
      start(['--recorder', 'main@mqtt'], { RECDECK_MQTT_ID: 'desk-1', RECDECK_MQTT_KEY_FILE: join(folder, 'desk-1.pem') }, [surface]),
    ]);
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
    const record = await done;
    expect(record, JSON.stringify([record, logs.flat()])).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start' });
    await until(() => channel() === 'recording', 'the take on the panel');
    expect(sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);
    // The poller's audit file has the command with who sent it.
    const audited = async () => (await readFile(audit, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
    await waitUntil(async () => (await audited()).length > 0, 'the audit line');
    const lines = await audited();
    expect(JSON.parse(lines[0] as string)).toMatchObject({ surface: 'bus:desk-1', action: 'recStart', recorder: 'main', request: 'PUT /api/channels/0/rec-start', result: 'ok' });
    // This test's broker limits no packet size: both ends say so at connect.
    for (const log of logs) expect(log).toContainEqual(expect.stringContaining('the broker accepts packets of any size; set max_packet_size 1048576'));
  });

  it('--mqtt-insecure starts with a warning that says what it means', async (test) => {
    const broker = await startBroker();
    test.onTestFinished(() => broker.close());
    const folder = await tempFolder(test);
    const log = keptLog();
    const running = await startBridge({ ...parseRunArgs(['--mqtt', broker.url, '--mqtt-insecure', '--recorder', 'main@mqtt', '--profile', folder, '--no-web'], {}), surfaces: [], sources: [] }, log);
    test.onTestFinished(() => running.stop());
    expect(log.lines[0]).toMatch(/^--mqtt-insecure: nothing on the state bus mqtt:\/\/127\.0\.0\.1:\d+ is signed or checked: anyone who can publish there runs commands on the recorders and shows every panel any state/);
  });

  it('keygen writes a private key only its owner reads, never over another, and prints the facility entry', async (test) => {
    const folder = await tempFolder(test);
    let printed = '';
    await bus(['keygen', 'desk-2', '--out', join(folder, 'desk-2.pem')], (text) => (printed += text));
    expect((await stat(join(folder, 'desk-2.pem'))).mode & 0o777).toBe(0o600);
    expect(printed).toMatch(/panels:\n {2}desk-2:\n {4}publicKey: [A-Za-z0-9_-]{43}\n/);
    await expect(bus(['keygen', 'desk-2', '--out', join(folder, 'desk-2.pem')], () => undefined)).rejects.toThrow(/exists already \(a key is never overwritten\)/);
    await expect(bus(['keygen', 'a/b', '--out', join(folder, 'x.pem')], () => undefined)).rejects.toThrow(/a bus id is 1-64 letters/);
    await expect(bus(['keygen', 'desk-3'], () => undefined)).rejects.toThrow('--out FILE');
  });

  it('says what is wrong with the bus settings, the key file and the facility file', async (test) => {
    expect(() => busSettings({ mqtt: 'http://broker:1883' }, {})).toThrow('--mqtt: expected an mqtt:// or mqtts:// URL, got http:');
    expect(() => busSettings({ mqtt: 'mqtt://me:secret@broker:1883' }, {})).toThrow(/RECDECK_MQTT_USER/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883' }, {})).toThrow(/--mqtt-facility FILE and --mqtt-key-file FILE .*, or --mqtt-insecure/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-facility': 'f.yaml' }, {})).toThrow(/--mqtt-key-file FILE/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-facility': 'f.yaml', 'mqtt-key-file': 'k.pem' }, {})).toThrow(/--mqtt-id ID/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-id': 'desk-1' }, { RECDECK_MQTT_USER: 'desk-2' })).toThrow(/must be the same/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-ca': 'ca.pem' }, {})).toThrow(/give an mqtts:\/\/ URL/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-keepalive': '0' }, {})).toThrow('--mqtt-keepalive: expected a whole number of s from 1 to 600, got 0');
    expect(() => splitBusRecorders(['main@mqtt'], null)).toThrow('--recorder main@mqtt: a recorder on the bus needs --mqtt URL (or RECDECK_MQTT)');
    expect(() => splitBusRecorders(['a/b@mqtt'], bare('mqtt://x'))).toThrow(/letters, digits/);
    expect(busSettings({}, { RECDECK_MQTT: 'mqtts://broker:8883', RECDECK_MQTT_USER: 'deck', RECDECK_MQTT_PASSWORD: 'pw', RECDECK_MQTT_INSECURE: '1' })).toEqual({ url: 'mqtts://broker:8883', username: 'deck', password: 'pw', facility: null, id: 'deck', tls: {}, keepaliveS: 5, monitor: null });
    expect(parseRunArgs(['--mqtt', 'mqtt://127.0.0.1:1883', '--recorder', 'main@mqtt', '--mqtt-facility', 'f.yaml', '--mqtt-key-file', 'k.pem', '--mqtt-id', 'desk-1', '--mqtt-keepalive', '3'], {}).mqtt).toEqual({
      url: 'mqtt://127.0.0.1:1883',
      facility: { file: 'f.yaml', keyFile: 'k.pem' },
      id: 'desk-1',
      tls: {},
      keepaliveS: 3,
      monitor: null,
    });
    // The monitor login: both or neither, a login of its own, beside the bus login.
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-monitor-user': 'poller-main-monitor' }, { RECDECK_MQTT_USER: 'poller-main' })).toThrow(/go together/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-monitor-user': 'poller-main', 'mqtt-monitor-password-file': 'pw' }, { RECDECK_MQTT_USER: 'poller-main' })).toThrow(/a login of its own/);
    expect(() => busSettings({ mqtt: 'mqtt://broker:1883', 'mqtt-insecure': true, 'mqtt-monitor-user': 'm', 'mqtt-monitor-password-file': 'pw' }, {})).toThrow(/give that login too/);

    // The files themselves are checked as the bridge starts.
    const folder = await tempFolder(test);
    const key = await keygen(folder, 'desk-1');
    const other = await keygen(folder, 'desk-2');
    const facility = join(folder, 'facility.yaml');
    const start = (settings: Partial<BusSettings>) =>
      startBridge({ recorderFlags: ['main@mqtt'], tokenFlags: [], profilePaths: [folder], pollMs: 100, env: {}, web: null, surfaces: [], sources: [], mqtt: { ...bare('mqtt://127.0.0.1:1'), id: 'desk-1', facility: { file: facility, keyFile: join(folder, 'desk-1.pem') }, ...settings } }, keptLog());
    await writeFile(facility, `panels:\n  desk-1:\n    publicKey: ${key}\n    may: { main: [read, contrl] }\n`);
    await expect(start({})).rejects.toThrow(new RegExp(`${facility.replaceAll('/', '\\/')}:4:25: panels.desk-1.may.main\\[1\\]: expected one of .*got "contrl"`));
    await writeFile(facility, `panels:\n  desk-1:\n    publicKey: ${other}\n    may: { main: [read] }\n`);
    await expect(start({})).rejects.toThrow(/--mqtt-key-file: .*desk-1.pem is not the key of "desk-1"/);
    await writeFile(facility, `panels:\n  desk-1:\n    publicKey: ${key}\n    may: { main: [read] }\n`);
    await expect(start({ id: 'desk-9' })).rejects.toThrow(/lists no poller or panel "desk-9"/);
    await chmod(join(folder, 'desk-1.pem'), 0o644);
    await expect(start({})).rejects.toThrow(/can be read by other users \(mode 0644\); chmod 600/);
  });
});
