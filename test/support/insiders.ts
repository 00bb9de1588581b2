// The secure facility of test/bus/insiders.test.ts (issue 34), made as the README's secure steps say:
// deploy/mosquitto/ as shipped, a login for every id, the poller a real `recdeck run` process (the built
// CLI, its log on stderr, an audit file), a panel bridge with its own login. One per test file.
//
// The poller runs in a session of its own (spawned detached), as a deployed poller runs: a service of
// its own. Linux groups a session's processes for the scheduler (autogroup: each session an equal share
// of the machine, however many processes it has), so a poller left in this test's session shared one
// share with Mosquitto, the simulator, the panel and the flood's publisher; on 2 cores loaded 15-25 by
// other work it waited, runnable, 0.9-1.2 s at a stretch on the run queue (its /proc/PID/schedstat, with
// its renewal path traced: the renewal timer fired 0.8 s late, after which the echo came back in ms),
// and lost its lease for the test's own load.
//
// What a file waits for before its first test is the poller's start: on 2 cores loaded 20-40 by others'
// work, `recdeck run` took 15-20 s to load before its first log line (2.3-2.5 s of its CPU). So what
// need not wait for it goes beside it: the broker and the simulator start together; while the poller
// loads, the standby's login hands the lease over (handLeaseOver, as the rig and deploy/mosquitto's
// test do), so the poller claims as soon as it reads the lease instead of a TTL (3 polls) after its
// start (a fresh poller cannot know sooner that nobody holds it); the panel connects meanwhile.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll } from 'vitest';
import { BRIDGE_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { runCommand } from '../../src/cli/run-flags.js';
import { channelState, generatedFacility, handLeaseOver, startPanel, startSimulator, until, type Panel } from './facility.js';
import { startDeployedBroker, type RestartableBroker } from './mosquitto.js';
import type { SimulatorFixture } from './simulator.js';

export const LOGINS = { 'poller-main': 'poller-secret', 'poller-main-monitor': 'monitor-secret', 'poller-main-standby': 'standby-secret', 'desk-1': 'desk-1-secret', gallery: 'gallery-secret' };
export const login = (user: keyof typeof LOGINS) => ({ username: user, password: LOGINS[user] });
/** Bounds on waiting on this busy machine, not timings under test. */
export const WAIT_MS = 60_000;
/** The key the panel watches shows channel 1: these are its live pictures (not stale, not offline). */
export const LIVE = new Set(['idle', 'recording']);
/** run's default poll (250 ms, a lease of 750 ms), as the README's secure steps start the poller. */
export const DEFAULT_POLL_MS = Number(runCommand.flags['poll-ms'].default);

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** VmRSS of a process, in MB. */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) / 1024;
}

export interface InsidersRig {
  folder: string;
  broker: RestartableBroker;
  sim: SimulatorFixture;
  members: ReturnType<typeof generatedFacility>;
  poller: ChildProcess;
  /** The poller's log, one JSON line each (its msg). */
  log: string[];
  panel: Panel;
  /** Connections a test made: ended with the rig. */
  clients: MqttClient[];
  /** The poller's audit file's lines so far. */
  auditLines: () => string[];
  /** The poller's client ids, oldest first, as the broker's own log (its administrator) has them. */
  pollerIds: () => Array<string | undefined>;
  /** Samples the panel's key at every turn of a wait: its state over the wait. */
  sampler: () => { samples: string[]; take: () => void };
  close: () => Promise<void>;
}

/**
 * A file's facility, called in its describe: started before its tests, closed after them (`beforeClose`
 * first: what a test started beside it). The function returned gives it to a test.
 */
export function useInsiders(pollMs: number, beforeClose?: () => void, beside?: Beside): () => InsidersRig {
  let rig: InsidersRig | null = null;
  beforeAll(async () => {
    rig = await startInsiders(pollMs, beside);
  }, 2 * WAIT_MS);
  afterAll(async () => {
    beforeClose?.();
    await rig?.close();
  }, WAIT_MS);
  return () => {
    if (rig === null) throw new Error('the facility has not started');
    return rig;
  };
}

/**
 * What a file starts beside the facility once its broker and members are there, as the poller process is
 * spawned (insiders.test.ts: the flood's publisher, which signs while the poller loads); the file
 * ends it (useInsiders' beforeClose).
 */
export type Beside = (facility: { broker: RestartableBroker; members: ReturnType<typeof generatedFacility>; folder: string }) => Promise<void>;

/** The facility, with the poller at `pollMs` (run's default when it is DEFAULT_POLL_MS) and the panel live from it. */
export async function startInsiders(pollMs: number, beside?: Beside): Promise<InsidersRig> {
  const starting = [mkdtemp(join(tmpdir(), 'recdeck-insiders-')), startDeployedBroker(LOGINS), startSimulator()] as const;
  const settled = await Promise.allSettled(starting);
  if (settled.some((started) => started.status === 'rejected')) {
    // What did start is ended before the failure is thrown.
    const [folderStarted, brokerStarted, simStarted] = settled;
    if (simStarted.status === 'fulfilled') await simStarted.value.close();
    if (brokerStarted.status === 'fulfilled') await brokerStarted.value.close();
    if (folderStarted.status === 'fulfilled') await rm(folderStarted.value, { recursive: true, force: true });
  }
  const [folder, broker, sim] = await Promise.all(starting);
  const members = generatedFacility('main', ['poller-main', 'poller-main-standby'], ['desk-1', 'gallery'], { gallery: ['read'] });
  const files = await members.writeFiles(folder, 'poller-main');
  const audit = join(folder, 'audit.jsonl');
  const poll = pollMs === DEFAULT_POLL_MS ? [] : ['--poll-ms', String(pollMs)];
  const args = ['run', '--recorder', sim.sim.url, '--mqtt', broker.url, '--mqtt-facility', files.facility, '--mqtt-key-file', files.keyFile, '--mqtt-id', 'poller-main', ...poll, '--no-web', '--log-format', 'json', '--audit-file', audit];
  const monitorPassword = join(folder, 'monitor-password');
  await writeFile(monitorPassword, LOGINS['poller-main-monitor'], { mode: 0o600 });
  const env = { PATH: process.env.PATH, RECDECK_TOKEN: sim.sim.token, RECDECK_MQTT_USER: 'poller-main', RECDECK_MQTT_PASSWORD: LOGINS['poller-main'], RECDECK_MQTT_MONITOR_USER: 'poller-main-monitor', RECDECK_MQTT_MONITOR_PASSWORD_FILE: monitorPassword };
  try {
    await beside?.({ broker, members, folder });
  } catch (error) {
    await Promise.all([sim.close(), broker.close()]);
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  // A session of its own (see the file's comment); ended by close(), or by the test that kills it.
  const poller = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
  const log: string[] = [];
  let partial = '';
  poller.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) log.push((JSON.parse(line) as { msg?: string }).msg ?? line);
  });
  const clients: MqttClient[] = [];
  let panel: Panel | null = null;
  const close = async () => {
    // The poller, the panel and the test's connections end side by side; the simulator and the broker after them.
    const pollerExited = async () => {
      if (poller.exitCode !== null || poller.signalCode !== null) return;
      const exited = new Promise((resolve) => poller.once('exit', resolve));
      poller.kill('SIGTERM');
      await exited;
    };
    const panelStopped = async () => {
      if (panel === null) return;
      await panel.bridge.stop();
      await panel.mqtt.endAsync(true);
    };
    await Promise.all([pollerExited(), panelStopped(), ...clients.map((client) => client.endAsync(true))]);
    await Promise.all([sim.close(), broker.close()]);
    await rm(folder, { recursive: true, force: true });
  };
  try {
    // While the poller loads (see the file's comment): the lease handed over, the panel connected.
    // Both settled before either's failure is thrown, so that close() ends a panel that did start.
    const [handedOver, started] = await Promise.allSettled([
      handLeaseOver(broker, sim, pollMs, { authority: members.authority('poller-main-standby'), connect: login('poller-main-standby') }),
      startPanel(broker, pollMs, { authority: members.authority('desk-1'), connect: login('desk-1'), reconnectPeriod: 500 }),
    ]);
    if (started.status === 'fulfilled') panel = started.value;
    for (const result of [handedOver, started]) if (result.status === 'rejected') throw result.reason;
    const live = panel as Panel;
    await until(() => channelState(live, 'key0') === 'idle', 'the panel live from the poller process', WAIT_MS);
    return {
      folder,
      broker,
      sim,
      members,
      poller,
      log,
      panel: live,
      clients,
      auditLines: () => (existsSync(audit) ? readFileSync(audit, 'utf8').split('\n').filter((line) => line !== '') : []),
      pollerIds: () => [...broker.stderr().matchAll(/as (poller-main-[0-9a-f]{16}) \(/g)].map((m) => m[1]),
      sampler: () => {
        const samples: string[] = [];
        return { samples, take: () => void samples.push(channelState(live, 'key0') ?? 'none') };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
