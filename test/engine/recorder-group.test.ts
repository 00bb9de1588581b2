// The group's rules as pure functions: the same call to every member or none, an outcome that names the
// members that failed, and one picture from the members' own.
import { describe, expect, it } from 'vitest';
import { refuse, send } from '../../src/engine/command-plan.js';
import { groupPicture } from '../../src/engine/group-picture.js';
import type { ChannelPicture, ChannelState } from '../../src/engine/picture.js';
import { pageDemand } from '../../src/engine/extras-demand.js';
import { decideGroup, groupOutcome } from '../../src/engine/recorder-group.js';
import { initialRecorderState } from '../../src/engine/recorder-state.js';
import { Page } from '../../src/profiles/schema.js';

const start = send({ method: 'recStart', args: [0] });
const stop = send({ method: 'recStop', args: [0] });

describe('decideGroup', () => {
  it('sends when every member would be sent the same call', () => {
    expect(decideGroup('studio', [{ member: 'main', plan: start }, { member: 'backup', plan: start }])).toEqual({ kind: 'send', plans: [{ member: 'main', plan: start }, { member: 'backup', plan: start }] });
  });

  it('refuses when members would be sent different calls, saying what each would get', () => {
    expect(decideGroup('studio', [{ member: 'main', plan: stop }, { member: 'backup', plan: start }])).toEqual({
      kind: 'refuse',
      reason: "studio's members disagree (main PUT /api/channels/0/rec-stop, backup PUT /api/channels/0/rec-start); nothing sent: bring them to the same state first",
    });
  });

  it('compares bodies too: a schedule switched on and one switched off differ', () => {
    const on = send({ method: 'setSchedule', args: [{ IsEnabled: true }] });
    const off = send({ method: 'setSchedule', args: [{ IsEnabled: false }] });
    expect(decideGroup('studio', [{ member: 'main', plan: on }, { member: 'backup', plan: off }]).kind).toBe('refuse');
  });

  it('refuses whole when any member cannot be planned, naming it', () => {
    expect(decideGroup('studio', [{ member: 'main', plan: start }, { member: 'backup', plan: refuse('the recorder is offline') }])).toEqual({ kind: 'refuse', reason: 'backup: the recorder is offline; nothing sent to studio' });
    expect(decideGroup('studio', [{ member: 'main', failed: 'could not read the schedule' }, { member: 'backup', plan: start }])).toEqual({ kind: 'refuse', reason: 'main: could not read the schedule; nothing sent to studio' });
  });
});

describe('groupOutcome', () => {
  it('is ok only when every member is, and names the others', () => {
    expect(groupOutcome([{ member: 'main', result: 'ok', message: null }, { member: 'backup', result: 'ok', message: null }])).toEqual({ result: 'ok', message: null });
    expect(groupOutcome([{ member: 'main', result: 'ok', message: null }, { member: 'backup', result: 'failed', message: 'Disk full' }])).toEqual({ result: 'failed', message: 'BACKUP FAILED: Disk full' });
    expect(groupOutcome([{ member: 'main', result: 'refused', message: 'not run' }, { member: 'backup', result: 'failed', message: 'Disk full' }])).toEqual({ result: 'failed', message: 'MAIN REFUSED: not run; BACKUP FAILED: Disk full' });
  });
});

const channel = (state: ChannelState, warning: string | null = null): ChannelPicture => ({
  kind: 'channel',
  channel: 1,
  state,
  lastSeen: null,
  source: 'Cam 1',
  durationS: state === 'recording' ? 12 : null,
  fps: null,
  drops: 0,
  warning,
  buffered: 0,
  audioPreview: false,
  thumbnail: null,
  ageS: state === 'offline' ? 9 : null,
});

describe('groupPicture', () => {
  const both = (main: ChannelPicture, backup: ChannelPicture) => groupPicture('studio', [{ name: 'main', picture: main }, { name: 'backup', picture: backup }]);

  it('shows REC only when every member records, and names the one that does not', () => {
    expect(both(channel('recording'), channel('recording'))).toEqual(channel('recording'));
    expect(both(channel('recording'), channel('idle'))).toMatchObject({ state: 'idle', warning: 'BACKUP NOT REC' });
    expect(both(channel('idle'), channel('recording'))).toMatchObject({ state: 'idle', warning: 'MAIN NOT REC' });
    expect(both(channel('idle'), channel('idle'))).toEqual(channel('idle'));
  });

  it('names a member offline, stale or paused as such, and shows its state', () => {
    expect(both(channel('recording'), channel('offline'))).toMatchObject({ state: 'offline', warning: 'BACKUP OFFLINE', ageS: null });
    expect(both(channel('stale'), channel('recording'))).toMatchObject({ state: 'stale', warning: 'MAIN STALE' });
    expect(both(channel('recording'), channel('paused'))).toMatchObject({ state: 'paused', warning: 'BACKUP PAUSED' });
  });

  it("names a take's problem with the member it is on", () => {
    expect(both(channel('recording'), channel('recording', 'DROP 3'))).toMatchObject({ state: 'recording', warning: 'BACKUP DROP 3' });
  });

  it('any other show is the members\' common picture, or says they differ', () => {
    const page = { kind: 'page' as const, name: 'one', number: 1, count: 2 };
    expect(groupPicture('studio', [{ name: 'main', picture: page }, { name: 'backup', picture: page }])).toEqual(page);
    expect(groupPicture('studio', [{ name: 'main', picture: page }, { name: 'backup', picture: { ...page, number: 2 } }])).toMatchObject({ kind: 'label', text: 'STUDIO\nMEMBERS DIFFER' });
  });
});

describe('what a group key needs fetched', () => {
  it('previews and meters from every member, each by its own channel list', () => {
    const page = Page.parse({ name: 'p', controls: { key0: { recorder: 'studio', show: { channel: 2, thumbnail: true } }, key1: { recorder: 'studio', show: { meter: 1 } } } });
    const stateOf = (name: string) => ({ ...initialRecorderState(name, 100), channels: [{ SourceName: `${name} cam` }] }) as unknown as ReturnType<typeof initialRecorderState>;
    const demand = pageDemand(page, { defaultRecorder: 'main', groups: new Map([['studio', ['main', 'backup']]]), stateOf, selectedChannel: 1 });
    expect([...demand].map(([name, d]) => [name, [...d.thumbnails], [...d.meters]])).toEqual([
      ['main', [1], ['main cam']],
      ['backup', [1], ['backup cam']],
    ]);
  });
});
