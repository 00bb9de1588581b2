// Controls that show the same thing of the same recorder (a channel's key and the keys that start and
// stop it; two keys showing one meter) share one derivation per refresh (session-pictures.ts): what
// each control gets is what deriving it alone gives, its picture, the moment that next changes by time
// alone and whether it reads a fetch, and its own marks (a flash, a paged reason) stay its own. Checked
// on virtual time across a take's seconds, stale data, a running flash, with the recorder's state
// written by hand.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DISK_TIME, DiskTimes } from '../../src/engine/disk-time.js';
import { DurationClock } from '../../src/engine/duration-clock.js';
import { RecorderExtras } from '../../src/engine/recorder-extras.js';
import type { CallResult } from '../../src/engine/recorder-link.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { SessionPictures } from '../../src/engine/session-pictures.js';
import { initialSessionState, type SessionState } from '../../src/engine/session/session-state.js';
import { keyGrid } from '../../src/engine/surface.js';
import type { ClientCall } from '../../src/engine/command-plan.js';
import type { Page } from '../../src/profiles/schema.js';
import { parseTestProfile } from '../support/bridge.js';
import { channelOf } from '../support/channels.js';
import { VirtualTime } from '../support/virtual-time.js';
import { WrittenStateLink } from '../support/written-state-link.js';

const PROFILE = `
name: shared
match: { kind: memory }
pages:
  - name: Main
    controls:
      key0: { show: { channel: 1 } }
      key1: { show: { channel: 2 } }
      key2: { show: { meter: 1 } }
      key3: { show: { channel: 1, thumbnail: true } }
      key8: { press: { action: rec-start, channel: 1 } }
      key9: { press: { action: rec-stop, channel: 1 } }
      key10: { press: { action: rec-start, channel: 2 } }
      key11: { show: { meter: 1 } }
      key12: { show: { channel: 2 }, press: { action: rec-pause, channel: 2 } }
`;

class Link extends WrittenStateLink {
  call<C extends ClientCall>(): Promise<CallResult<C>> {
    return Promise.reject(new Error('no commands here'));
  }
}

function setUp() {
  const time = new VirtualTime();
  const now = time.now();
  const channels = [channelOf(0, { IsRecording: true, RecordingDuration: 12, RecordingFPS: 25 }), channelOf(1, { IsRecording: true, RecordingDuration: 3, RecordingFPS: 25 })];
  const state: RecorderState = { ...initialRecorderState('main', 250, 5000), channels, lastGoodAt: now, readAt: { channels: now, sync: now, dialog: now, sources: now, resources: now, schedule: now, conversion: now } };
  const link = new Link(state);
  const durations = new DurationClock();
  // Two takes whose seconds turn at different moments.
  durations.observe('0', true, 12, now);
  durations.observe('1', true, 3, now - 400);
  const extras = new RecorderExtras(link, { decodeThumbnail: async () => ({ width: 1, height: 1, data: Buffer.alloc(3) }), time });
  const controls = keyGrid(4, 8, 72);
  const pictures = new SessionPictures(controls, { recorders: new Map([['main', { name: 'main', link, extras, durations, diskTimes: new DiskTimes(DEFAULT_DISK_TIME) }]]), defaultRecorder: 'main', time });
  const { profile, file } = parseTestProfile(PROFILE);
  const bound = { name: profile.name, file, pages: profile.pages, groups: new Map() };
  const page = profile.pages[0] as Page;
  const basis = (session: SessionState) => ({ profile: bound, state: session, page, groups: new Map(), marksSelection: false });
  return { time, controls, pictures, basis };
}

describe('controls showing the same thing share one derivation', () => {
  it('each gets what deriving it alone gives, at every moment, with its own marks', () => {
    const { time, controls, pictures, basis } = setUp();
    // key9 (rec-stop of channel 1) shows a refusal's reason, paged: its mark, not its neighbours'.
    const flashes = new Map([['key9', { kind: 'refused' as const, reason: 'the disk it records to is being checked and takes no new work for now', page: 'Main', at: time.now(), id: 1 }]]);
    const session: SessionState = { ...initialSessionState('Main', 70), flashes };
    let moments = 0;
    // Every 37 ms for 7 s: the takes' seconds, the flash's pages and end, the data turning stale.
    for (let step = 0; step < 190; step++) {
      const together = pictures.derive(controls, basis(session));
      for (const control of controls) {
        const alone = pictures.derive([control], basis(session)).get(control.id);
        expect({ at: time.now(), control: control.id, shown: together.get(control.id) }).toEqual({ at: time.now(), control: control.id, shown: alone });
      }
      // The channel's keys are one picture, taken by the others; the flashed key's is its own.
      if (together.get('key8')?.picture !== together.get('key0')?.picture) throw new Error(`key8 does not share key0's picture at ${time.now()}`);
      expect(together.get('key9')?.picture).not.toEqual(together.get('key0')?.picture);
      expect(together.get('key11')?.picture).toBe(together.get('key2')?.picture);
      expect(together.get('key2')?.readsFetched).toBe(true);
      if (together.get('key0')?.changesAt !== null) moments++;
      time.advance(37);
    }
    expect(moments).toBeGreaterThan(100); // the clock's moments were there to share
  });
});
