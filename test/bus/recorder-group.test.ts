// e2e because Mosquitto is the part: one member of the group travels over the bus, and there is no broker
// but the real one to carry it (the panel and its poller run in this process).
// A recorder group whose members travel differently: main over the bus (a panel that knows only
// main@mqtt, its poller holding the recorder), backup polled by the panel itself. One press reaches each
// recorder once; the key shows REC only when both record and names the one that does not.
import { describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { facilityFor, pictureOf, until, type Panel } from '../support/facility.js';
import { startSimulator } from '../support/facility.js';
import type { SimulatorFixture } from '../support/simulator.js';
import { realClock } from '../../src/api/clock.js';

const POLL_MS = 250;

const GROUP_PROFILE = `
name: redundant panel
match: { kind: memory }
recorders: { studio: [main, backup] }
pages:
  - name: one
    controls:
      key0: { recorder: studio, show: { channel: 1 }, press: { action: rec-start, channel: 1 } }
      key1: { recorder: studio, press: { action: rec-toggle, channel: 2 } }
`;

const writes = (sim: SimulatorFixture) => sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('a recorder group over the bus', () => {
  it('sends one request to the member on the bus and one to the member polled here; the key names the one not recording', async (test) => {
    const backup = await startSimulator();
    const client = new RecorderClient({ clock: realClock, url: backup.sim.url, token: backup.sim.token });
    // A lease TTL of 3 s: this test is not about the lease, and a stall of this busy machine moves none.
    const f = await facilityFor(test, { pollMs: POLL_MS, panels: ['panel-a'], poller: () => ({ ttlMs: 3000 }), panel: () => ({ profile: GROUP_PROFILE, deadlineMs: 8000, moreRecorders: [{ name: 'backup', client }] }) });
    f.defer(async () => {
      await client.close();
      await backup.close();
    });
    const panel = f.panels[0] as Panel;
    const warning = () => {
      const picture = pictureOf(panel, 'key0');
      return picture?.kind === 'channel' ? `${picture.state} ${picture.warning ?? ''}`.trim() : undefined;
    };
    // Waited for, not read once: the facility's start waits for the panel live, and a late poll on a loaded
    // machine can show main's data past its age a moment after ("stale MAIN STALE", a paired run at load 9,
    // 2026-11-29): the key honest about its data, which the next poll makes live again.
    await until(() => warning() === 'idle', 'the key to show idle, both members live');
    const before = panel.commands.length;
    panel.surface.press('key0');
    await until(() => panel.commands.length - before >= 2, 'both members to answer');
    expect(panel.commands.slice(before).map((r) => `${r.recorder} ${r.result}`).sort()).toEqual(['backup ok', 'main ok']);
    expect(f.writes()).toEqual(['PUT /api/channels/0/rec-start']);
    expect(writes(backup)).toEqual(['PUT /api/channels/0/rec-start']);
    await until(() => warning() === 'recording', 'the key to show REC');
    // The backup stops on its own: the key no longer says REC, and names it.
    await backup.client.recStop(0);
    await until(() => warning() === 'idle BACKUP NOT REC', 'the key to name the backup');
    // A toggle on members that disagree sends nothing to either.
    await f.sim.client.recStart(1);
    await until(() => panel.bridge.recorderStates().find((s) => s.name === 'main')?.channels?.[1]?.IsRecording === true, 'main to be seen recording channel 2');
    const refused = panel.nextCommand('key1');
    panel.surface.press('key1');
    expect(await refused).toMatchObject({ result: 'refused', recorder: 'studio' });
    expect(f.writes()).toEqual(['PUT /api/channels/0/rec-start', 'PUT /api/channels/1/rec-start']);
    expect(writes(backup)).toEqual(['PUT /api/channels/0/rec-start', 'PUT /api/channels/0/rec-stop']);
  }, 60_000);
});
