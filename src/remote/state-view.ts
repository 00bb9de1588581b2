// What the bridge knows, as plain JSON for GET /state and the web deck's status panel. Built from names
// and states only: the recorder's token and destinations' stream keys are never in it (a channel lists
// its destinations by name; the bridge never reads destination settings).
import type { Bridge } from '../engine/bridge.js';
import type { ChannelState, Freshness } from '../engine/picture.js';
import type { ProfileTie } from '../engine/profile-match.js';
import type { DiskLevel, DiskTimeLeft } from '../engine/disk-time.js';
import { takeDuration } from '../engine/duration-clock.js';
import { ageSeconds, freshnessOf } from '../engine/recorder-state.js';
import { channelStateOf } from '../engine/show.js';

export interface RecorderView {
  name: string;
  url: string;
  freshness: Freshness;
  /** Seconds since the last good answer; null if there was none. */
  ageS: number | null;
  lastError: string | null;
  channels: ChannelView[];
  sync: { recording: boolean; paused: boolean } | null;
  dialog: { shown: boolean; text: string; buttons: string } | null;
  /** Each recording disk while channels record: time left once its rate is steady (src/engine/disk-time.ts). */
  disks: DiskView[];
}

export interface DiskView {
  disk: string;
  usedPercent: number;
  /** Seconds until full at the measured rate; null until the rate is steady, or while the reads are not live. */
  secondsLeft: number | null;
  percentPerMinute: number | null;
  /** amber or red under the thresholds (--disk-amber-min, --disk-red-min); null without an estimate. */
  level: DiskLevel | null;
  /** The resources reads' freshness and age, which the estimate is as old as. */
  freshness: Freshness;
  ageS: number | null;
}

export interface ChannelView {
  number: number;
  state: ChannelState;
  source: string | null;
  destinations: string[];
  /** The take's duration as its key shows it: counted on while live, else frozen at the last confirmed value. */
  durationS: number | null;
  fps: number | null;
  drops: number;
  /** The channel data's freshness and age (seconds since it was read; null if never), as on its key. */
  freshness: Freshness;
  ageS: number | null;
}

export interface SurfaceView {
  id: string;
  kind: string;
  model: string;
  name: string;
  profile: string;
  /** Profiles that fit this surface equally (same specificity and origin): the one in use won by file name only. */
  profileTie: ProfileTie | null;
  page: { name: string; number: number; count: number };
}

export interface StateView {
  recorders: RecorderView[];
  surfaces: SurfaceView[];
}

function diskViews(disks: readonly DiskTimeLeft[], freshness: Freshness, ageS: number | null): DiskView[] {
  const live = freshness === 'live';
  return disks.map((d) => ({
    disk: d.disk,
    usedPercent: d.used,
    secondsLeft: live && d.secondsLeft !== null ? Math.round(d.secondsLeft) : null,
    percentPerMinute: live ? d.percentPerMinute : null,
    level: live ? d.level : null,
    freshness,
    ageS,
  }));
}

export function stateView(bridge: Bridge): StateView {
  const now = bridge.time.now();
  const addresses = new Map(bridge.recorderAddresses().map((r) => [r.name, r.url]));
  const recorders = bridge.recorderStates().map((state): RecorderView => {
    const freshness = freshnessOf(state, now);
    // A channel is as fresh as the channel data, as on its key (not the dialog's or the sync's age).
    const channelData = { freshness: freshnessOf(state, now, ['channels']), ageS: ageSeconds(state, now, ['channels']) };
    return {
      name: state.name,
      url: addresses.get(state.name) ?? '',
      freshness,
      ageS: ageSeconds(state, now),
      lastError: state.lastError,
      channels: (state.channels ?? []).map((c) => ({
        number: c.Index + 1,
        state: channelStateOf(c, channelData.freshness),
        source: c.SourceName,
        destinations: [...c.Destinations],
        durationS: takeDuration(c, channelData.freshness, (index) => bridge.durationOf(state.name, index)),
        fps: c.IsRecording && !c.IsRecordingPause ? c.RecordingFPS : null,
        drops: c.RecordingDrops,
        ...channelData,
      })),
      sync: state.sync ? { recording: state.sync.IsSyncRecording, paused: state.sync.IsSyncRecordingPause } : null,
      dialog: state.dialog ? { shown: state.dialog.IsDialog, text: state.dialog.DialogContent, buttons: state.dialog.Buttons } : null,
      disks: diskViews(bridge.diskTimesLeft(state.name), freshnessOf(state, now, ['resources']), ageSeconds(state, now, ['resources'])),
    };
  });
  const surfaces = bridge.surfaceSessions().map((session): SurfaceView => ({
    id: session.surface.id,
    kind: session.surface.kind,
    model: session.surface.model,
    name: session.surface.name,
    profile: session.profileName,
    profileTie: bridge.profileTie(session.surface.id),
    page: session.currentPage,
  }));
  return { recorders, surfaces };
}
