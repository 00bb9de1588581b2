// Main and backup as one key: a binding on a recorder group, against two simulators on one virtual clock.
// One press sends one request to each member; a member that refuses is named on the key; the key shows
// REC only when both record, and names the member that does not; a toggle refuses when they disagree.
import { afterEach, describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { lastSeq, startFixture, writesSince, type SimulatorFixture } from '../support/simulator.js';
import { VirtualTime } from '../support/virtual-time.js';

const PROFILE = `
name: redundant
match: { kind: memory }
recorders: { studio: [main, backup] }
pages:
  - name: main
    controls:
      key0: { recorder: studio, press: { action: rec-start, channel: 1 } }
      key1: { recorder: studio, press: { action: rec-toggle, channel: 2 } }
      key2: { recorder: studio, show: { channel: 3 } }
      key3: { recorder: studio, press: { action: rec-stop, channel: 1 } }
`;

let f: BridgeFixture | undefined;
let backup: SimulatorFixture | undefined;
afterEach(async () => {
  await f?.close();
  await backup?.close();
  f = backup = undefined;
});

/** The bridge with main (its own simulator) and backup (a second one on the same virtual clock). */
async function start(): Promise<{ f: BridgeFixture; backup: SimulatorFixture }> {
  // The backup's simulator runs on the bridge's virtual time too.
  const time = new VirtualTime();
  backup = await startFixture({ clock: time, grid: 16 });
  // The test reads the keys' pictures, never their images: drawn as pictures (bridge.ts, draws).
  f = await startBridgeFixture({ profile: PROFILE, moreRecorders: [{ name: 'backup', url: backup.sim.url, token: backup.sim.token }], time, draws: 'pictures' });
  const fixture = f;
  await fixture.until(() => fixture.bridge.recorderStates().every((s) => s.channels !== null), 'both recorders to be read');
  return { f: fixture, backup };
}

const pictureOf = (fixture: BridgeFixture, control: string): Picture | undefined => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;

describe('a recorder group', () => {
  it('one press sends one request to each member, each answer audited as its own', async () => {
    const { f, backup } = await start();
    const [mainMark, backupMark] = [f.mark(), lastSeq(backup.sim)];
    const before = f.commands.length;
    f.surface.press('key0');
    await f.until(() => f.commands.length - before >= 2, 'both members to answer');
    await f.advance(500);
    expect(f.writesSince(mainMark)).toEqual(['PUT /api/channels/0/rec-start']);
    expect(writesSince(backup.sim, backupMark)).toEqual(['PUT /api/channels/0/rec-start']);
    const records = f.commands.slice(before);
    expect(records.map((r) => [r.recorder, r.request, r.result]).sort()).toEqual([
      ['backup', 'PUT /api/channels/0/rec-start', 'ok'],
      ['main', 'PUT /api/channels/0/rec-start', 'ok'],
    ]);
    expect(pictureOf(f, 'key0')).toMatchObject({ kind: 'channel', state: 'recording', warning: null });
    // Readiness waits for the members, not for a recorder named "studio".
    expect(f.bridge.recordersInUse()).toEqual(['main', 'backup']);
  });

  it('a member that refuses is named on the key, and only its own request failed', async () => {
    const { f, backup } = await start();
    backup.sim.faults.set([{ kind: 'status', method: 'PUT', path: '/api/channels', status: 409, probability: 1, latencyMs: 0 }]);
    const before = f.commands.length;
    f.surface.press('key0');
    await f.until(() => f.commands.length - before >= 2, 'both members to answer');
    const records = f.commands.slice(before);
    expect(records.find((r) => r.recorder === 'main')).toMatchObject({ result: 'ok' });
    expect(records.find((r) => r.recorder === 'backup')).toMatchObject({ result: 'failed', message: 'injected fault: 409' });
    await f.until(() => pictureOf(f, 'key0')?.overlay?.flash === 'failed', 'the key to flash');
    expect(pictureOf(f, 'key0')?.overlay?.reason).toBe('BACKUP FAILED: injected fault: 409');
    // Main records, backup does not: no REC on the key, and the backup named.
    await f.until(() => pictureOf(f, 'key0')?.kind === 'channel' && (pictureOf(f, 'key0') as { warning: string | null }).warning === 'BACKUP NOT REC', 'the key to name the backup');
    expect(pictureOf(f, 'key0')).toMatchObject({ state: 'idle' });
  });

  it('shows the combined state for each of the four combinations of the members', async () => {
    const { f, backup } = await start();
    const cases: Array<{ main: boolean; backup: boolean; state: string; warning: string | null }> = [
      { main: false, backup: false, state: 'idle', warning: null },
      { main: true, backup: false, state: 'idle', warning: 'BACKUP NOT REC' },
      { main: false, backup: true, state: 'idle', warning: 'MAIN NOT REC' },
      { main: true, backup: true, state: 'recording', warning: null },
    ];
    for (const want of cases) {
      for (const [client, records] of [
        [f.client, want.main],
        [backup.client, want.backup],
      ] as const) {
        const channel = await client.getChannel(2);
        if (channel.IsRecording !== records) await (records ? client.recStart(2) : client.recStop(2));
      }
      await f.until(() => {
        const picture = pictureOf(f, 'key2');
        return picture?.kind === 'channel' && picture.state === want.state && picture.warning === want.warning;
      }, `key2 to show ${want.state} ${want.warning ?? ''} for main ${want.main ? 'recording' : 'stopped'}, backup ${want.backup ? 'recording' : 'stopped'}`);
    }
  });

  it('a member offline is named on the key, with the state it is in', async () => {
    const { f, backup } = await start();
    await f.client.recStart(2);
    await backup.client.recStart(2);
    await f.until(() => pictureOf(f, 'key2')?.kind === 'channel' && (pictureOf(f, 'key2') as { state: string }).state === 'recording', 'both to record');
    backup.sim.faults.set([{ kind: 'reset', probability: 1, latencyMs: 0, status: 500 }]);
    await f.until(() => (pictureOf(f, 'key2') as { warning?: string | null }).warning === 'BACKUP OFFLINE', 'the backup to be named offline', 10_000);
    expect(pictureOf(f, 'key2')).toMatchObject({ state: 'offline' });
  });

  it('a toggle decides from both members and refuses when they disagree, sending nothing', async () => {
    const { f, backup } = await start();
    await f.client.recStart(1); // channel 2 records on main only
    await f.advance(300);
    const [mainMark, backupMark] = [f.mark(), lastSeq(backup.sim)];
    const refused = f.nextCommand('key1');
    f.surface.press('key1');
    const record = await refused;
    expect(record).toMatchObject({ result: 'refused', recorder: 'studio', request: null });
    expect(record.message).toBe("studio's members disagree (main PUT /api/channels/1/rec-stop, backup PUT /api/channels/1/rec-start); nothing sent: bring them to the same state first");
    await f.advance(300);
    expect(f.writesSince(mainMark)).toEqual([]);
    expect(writesSince(backup.sim, backupMark)).toEqual([]);
    // Once both record, the toggle stops both.
    await backup.client.recStart(1);
    await f.advance(300);
    const [mainAgain, backupAgain] = [f.mark(), lastSeq(backup.sim)];
    const before = f.commands.length;
    f.surface.press('key1');
    await f.until(() => f.commands.length - before >= 2, 'both members to answer');
    expect(f.writesSince(mainAgain)).toEqual(['PUT /api/channels/1/rec-stop']);
    expect(writesSince(backup.sim, backupAgain)).toEqual(['PUT /api/channels/1/rec-stop']);
  });

  it('a toggle refuses when a member is offline, naming it', async () => {
    const { f, backup } = await start();
    backup.sim.faults.set([{ kind: 'reset', probability: 1, latencyMs: 0, status: 500 }]);
    await f.until(() => f.bridge.recorderStates().find((s) => s.name === 'backup')?.failures === 3, 'backup to go offline', 10_000);
    const mark = f.mark();
    const refused = f.nextCommand('key1');
    f.surface.press('key1');
    const record = await refused;
    expect(record).toMatchObject({ result: 'refused', request: null });
    expect(record.message).toMatch(/^backup: the recorder is offline/);
    await f.advance(300);
    expect(f.writesSince(mark)).toEqual([]);
  });
});
