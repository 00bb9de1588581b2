// e2e because Mosquitto is the part: its TLS listener decides which certificates it takes and whose
// login each is. The bus over TLS, end to end: a Mosquitto listener that takes only clients with a certificate its CA
// signed, and takes each certificate's name as the login (so deploy/mosquitto/'s %u ACL applies to it).
// `recdeck run` with --mqtt mqtts:// --mqtt-ca --mqtt-cert --mqtt-key drives the recorder through it; a
// client without a certificate, or with one another CA signed, is refused; a bridge that does not trust
// the broker's CA says why it cannot connect.
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectAsync, type IClientOptions } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRunArgs, startBridge, type RunningBridge } from '../../src/cli/run.js';
import { keyGrid } from '../../src/engine/surface.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { PANEL_PROFILE, handLeaseOverAs, keygen, keptLog, startSimulator, until } from '../support/facility.js';
import { DEPLOY, startBroker, type RestartableBroker } from '../support/mosquitto.js';
import { realTime } from '../../src/engine/engine-time.js';

const execFileAsync = promisify(execFile);
/** openssl in the folder; several run side by side (each a process of its own, waited on). */
const openssl = async (folder: string, args: string[]): Promise<void> => {
  await execFileAsync('openssl', args, { cwd: folder });
};

/** A CA (ca.pem, ca.key) in the folder, named `name`. */
async function makeCa(folder: string, name: string): Promise<void> {
  await openssl(folder, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.pem`]);
}

/** A certificate for `cn` signed by the CA `ca`: cn.pem and cn.key; the broker's names 127.0.0.1. */
async function makeCert(folder: string, ca: string, cn: string, ip = false): Promise<void> {
  await openssl(folder, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${cn}.key`, '-out', `${cn}.csr`]);
  if (ip) await writeFile(join(folder, `${cn}.ext`), 'subjectAltName=IP:127.0.0.1\n');
  // A serial file of its own per certificate: two signings by one CA at once would race on a shared one.
  await openssl(folder, ['x509', '-req', '-in', `${cn}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAserial', `${cn}.srl`, '-CAcreateserial', '-days', '2', '-out', `${cn}.pem`, ...(ip ? ['-extfile', `${cn}.ext`] : [])]);
}

interface TlsRig {
  broker: RestartableBroker;
  url: string;
  folder: string;
  file: (name: string) => string;
}

/** Mosquitto on TLS only, with the shipped ACL, a certificate required and its common name the login; `close` ends it and removes its files. */
async function tlsBroker(): Promise<TlsRig & { close: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-tls-'));
  // The two CAs, then every certificate, side by side.
  await Promise.all([makeCa(folder, 'facility-ca'), makeCa(folder, 'stranger-ca')]);
  await Promise.all([makeCert(folder, 'facility-ca', 'broker', true), ...['poller-main', 'desk-1'].map((id) => makeCert(folder, 'facility-ca', id)), makeCert(folder, 'stranger-ca', 'desk-2')]);
  const file = (name: string) => join(folder, name);
  const broker = await startBroker(async (port, brokerFolder) => {
    await copyFile(join(DEPLOY, 'acl'), join(brokerFolder, 'acl'));
    for (const name of ['facility-ca.pem', 'broker.pem', 'broker.key']) await copyFile(file(name), join(brokerFolder, name));
    // Started as root, Mosquitto drops to its own user, which must read these.
    await chmod(brokerFolder, 0o755);
    for (const name of ['acl', 'facility-ca.pem', 'broker.pem', 'broker.key']) await chmod(join(brokerFolder, name), 0o644);
    return [
      `listener ${port} 127.0.0.1`,
      `cafile ${brokerFolder}/facility-ca.pem`,
      `certfile ${brokerFolder}/broker.pem`,
      `keyfile ${brokerFolder}/broker.key`,
      'require_certificate true',
      'use_identity_as_username true',
      `acl_file ${brokerFolder}/acl`,
      'allow_anonymous false',
      '',
    ].join('\n');
  });
  const close = async () => {
    await broker.close();
    await rm(folder, { recursive: true, force: true });
  };
  return { broker, url: `mqtts://127.0.0.1:${broker.port}`, folder, file, close };
}

/** A TLS client of the rig's broker with these files (null: that part left out); resolves, or rejects with the broker's refusal. */
async function tryConnect(rig: TlsRig, files: { ca: string; cert: string | null; key: string | null }): Promise<'connected'> {
  const options: IClientOptions = {
    ca: await readFile(rig.file(files.ca)),
    ...(files.cert === null ? {} : { cert: await readFile(rig.file(files.cert)) }),
    ...(files.key === null ? {} : { key: await readFile(rig.file(files.key)) }),
    reconnectPeriod: 0,
    connectTimeout: 5000,
    protocolVersion: 5,
  };
  const client = await connectAsync(rig.url, options);
  await client.endAsync(true);
  return 'connected';
}

// One CA and broker for the file (the tests only connect to it), and the tests run side by side.
describe.concurrent('the state bus over TLS', () => {
  let shared: (TlsRig & { close: () => Promise<void> }) | null = null;
  beforeAll(async () => {
    shared = await tlsBroker();
  }, 60_000);
  afterAll(() => shared?.close(), 60_000);
  const tls = (): TlsRig => {
    if (shared === null) throw new Error('the TLS broker has not started');
    return shared;
  };

  it('recdeck run with --mqtt-ca, --mqtt-cert and --mqtt-key: a panel drives the recorder a poller publishes, each known to the broker by its certificate', async (test) => {
    const rig = tls();
    const sim = await startSimulator();
    test.onTestFinished(() => sim.close());
    await writeFile(rig.file('panel.yaml'), PANEL_PROFILE);
    const facility = rig.file('facility.yaml');
    const handover = await keygen(rig.folder, 'poller-handover', rig.file('poller-handover-signing.pem'));
    await writeFile(facility, `pollers:\n  poller-main:\n    publicKey: ${await keygen(rig.folder, 'poller-main', rig.file('poller-main-signing.pem'))}\n    recorders: [main]\n  poller-handover:\n    publicKey: ${handover}\n    recorders: [main]\npanels:\n  desk-1:\n    publicKey: ${await keygen(rig.folder, 'desk-1', rig.file('desk-1-signing.pem'))}\n    may: { main: [read, control] }\n`);
    // A poller that hands the lease to poller-main as it starts (it need not wait out a TTL first), over
    // TLS with poller-main's certificate (the broker's login; it signs with a key of its own).
    const tlsFiles = { ca: await readFile(rig.file('facility-ca.pem')), cert: await readFile(rig.file('poller-main.pem')), key: await readFile(rig.file('poller-main.key')) };
    await handLeaseOverAs(rig.broker, sim, 500, { id: 'poller-handover', keyFile: rig.file('poller-handover-signing.pem'), facilityFile: facility }, { brokerUrl: rig.url, connect: tlsFiles });
    // Polls every second, so poller-main's lease lapses only when no renewal came back for 3 s (this test is
    // about TLS, not the lease). At 500 ms (1.5 s) the press was refused once beside a second copy of the
    // suite (paired run 30, 2026-11-28); the failure did not say why, the likeliest being a renewal held up
    // past the TTL, as forgery.test.ts showed in the next run. The outcome's message is now shown.
    const start = async (id: string, args: string[], env: NodeJS.ProcessEnv, surfaces: MemorySurface[]): Promise<RunningBridge> => {
      const tls = ['--mqtt', rig.url, '--mqtt-ca', rig.file('facility-ca.pem'), '--mqtt-cert', rig.file(`${id}.pem`), '--mqtt-key', rig.file(`${id}.key`)];
      const signing = ['--mqtt-facility', facility, '--mqtt-id', id, '--mqtt-key-file', rig.file(`${id}-signing.pem`)];
      const options = parseRunArgs([...args, ...tls, ...signing, '--profile', rig.file('panel.yaml'), '--poll-ms', '1000', '--no-web'], env);
      const running = await startBridge({ ...options, surfaces, sources: [] }, keptLog());
      test.onTestFinished(() => running.stop());
      return running;
    };
    const surface = new MemorySurface({ time: realTime, id: 'memory:panel', model: 'test-15', controls: keyGrid(3, 5, 72) });
    // Started side by side: the panel shows what the poller publishes whenever it comes.
    const [, panel] = await Promise.all([start('poller-main', ['--recorder', sim.sim.url], { RECDECK_TOKEN: sim.sim.token }, []), start('desk-1', ['--recorder', 'main@mqtt'], {}, [surface])]);
    const channel = () => {
      const picture = panel.bridge.session('memory:panel')?.describeControls().find((c) => c.control.id === 'key0')?.picture;
      return picture?.kind === 'channel' ? picture.state : undefined;
    };
    await until(() => channel() === 'idle', 'the panel live from the bus over TLS');
    const done = new Promise((resolve) => panel.bridge.commands$.subscribe(resolve));
    surface.down('key0');
    surface.up('key0');
    // A refusal says why (its message), which a failure here must show.
    const outcome = (await done) as { result: string; request: string | null; message: string | null };
    expect(outcome.result, `the press's outcome: ${outcome.message ?? 'no message'}`).toBe('ok');
    expect(outcome.request).toBe('PUT /api/channels/0/rec-start');
    expect(sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);
  }, 60_000);

  it('refuses a client without a certificate, or with one another CA signed; a client that does not trust the broker cannot connect', async () => {
    const rig = tls();
    expect(await tryConnect(rig, { ca: 'facility-ca.pem', cert: 'desk-1.pem', key: 'desk-1.key' })).toBe('connected');
    await expect(tryConnect(rig, { ca: 'facility-ca.pem', cert: null, key: null })).rejects.toThrow(/certificate|alert|closed|ECONNRESET|socket hang up/i);
    await expect(tryConnect(rig, { ca: 'facility-ca.pem', cert: 'desk-2.pem', key: 'desk-2.key' })).rejects.toThrow(/certificate|alert|closed|ECONNRESET|socket hang up/i);
    await expect(tryConnect(rig, { ca: 'stranger-ca.pem', cert: 'desk-1.pem', key: 'desk-1.key' })).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  }, 60_000);
});
