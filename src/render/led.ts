// What a light-only control (pedal, pad, LED button) shows for a picture. Transient marks win over the
// picture's own state, as they do on keys: a held button shows its hold, a failed command its failure.
import type { Picture, SyncGroupState } from '../engine/picture.js';
import type { LedState } from '../engine/surface.js';

const SYNC_LEDS: Readonly<Record<SyncGroupState, LedState>> = {
  offline: 'offline',
  stale: 'stale',
  none: 'idle',
  armed: 'armed',
  recording: 'sync-recording',
  paused: 'paused',
};

export function ledStateOf(picture: Picture): LedState {
  const overlay = picture.overlay;
  // A tap on a key that wants a hold lights the hold colour for a moment: the pad's "HOLD".
  if (overlay?.hold !== undefined || overlay?.hint === 'hold') return 'holding';
  // A failed command reads as a fault; a refused one as "state unknown", which is why it was refused.
  if (overlay?.flash === 'failed') return 'wrong';
  if (overlay?.flash === 'refused') return 'stale';
  switch (picture.kind) {
    case 'channel':
      // LED palettes have one paused look; the sync take's pause is told apart on keys only.
      return picture.state === 'sync-paused' ? 'paused' : picture.state;
    case 'sync':
      return SYNC_LEDS[picture.state];
    case 'dialog':
      // A cancel button with no cancel to offer stays dark even while the dialog is up.
      return picture.active && (picture.role !== 'cancel' || picture.offersCancel) ? 'dialog' : 'off';
    case 'label':
      return picture.active === true ? 'active' : 'idle';
    case 'resources':
      // A disk short of time is a problem as urgent as a resource over 90 %: the pad says it too.
      return picture.freshness !== 'live' ? picture.freshness : picture.warning || (picture.timeLeft !== null && picture.timeLeft.level !== 'ok') ? 'wrong' : 'idle';
    case 'schedule':
      return picture.freshness !== 'live' ? picture.freshness : picture.enabled ? 'active' : 'idle';
    case 'meter':
      return picture.freshness !== 'live' ? picture.freshness : (picture.levels ?? []).some((db) => db > -60) ? 'active' : 'idle';
    case 'grid':
      return picture.freshness !== 'live' ? picture.freshness : picture.channels !== null && picture.channels === picture.target ? 'active' : 'idle';
    case 'page':
      return 'idle';
    case 'status':
      return picture.freshness !== 'live' ? picture.freshness : picture.dialog ? 'dialog' : picture.recording > 0 ? 'recording' : 'idle';
    case 'alarms':
      // A pad flashes its fault colour while an alarm waits (dark in the other phase), stays lit once all are acknowledged.
      if (picture.freshness !== 'live') return picture.freshness;
      if (picture.flashing) return picture.flashPhase ? 'wrong' : 'off';
      return (picture.count ?? 0) > 0 ? 'wrong' : 'idle';
    case 'blank':
      return 'off';
  }
}
