// The sync group key: group state, member channels, the group's clock, and the channels that fell out of
// the group's take ("OUT 3,7"), which an operator must notice at once.
import type { SyncKeyAction, SyncPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { CHANNEL_LOOKS, NEUTRAL, SYNC_LOOKS, WARNING, staleLook, type StateLook } from '../palette.js';
import type { TilePlan } from './plan.js';
import { ageFooter, stateClock, stateTileOps, stateTileSvg, type Identity, type StateTileBase, type StateTileDynamic } from './state-tile.js';

export function syncLook(picture: SyncPicture): StateLook {
  switch (picture.state) {
    case 'offline':
      return CHANNEL_LOOKS.offline;
    case 'stale':
      // What the group was last seen doing: a running clock means a take; members mean armed.
      return staleLook(picture.durationS !== null ? SYNC_LOOKS.recording : picture.members.length > 0 ? SYNC_LOOKS.armed : SYNC_LOOKS.none);
    default:
      return SYNC_LOOKS[picture.state];
  }
}

/** "1,2,5"; long runs of consecutive channels shortened to "1-8". */
export function channelList(channels: readonly number[]): string {
  const sorted = [...channels].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    parts.push(j - i >= 2 ? `${sorted[i]}-${sorted[j]}` : sorted.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * The footer when nothing more urgent is there: what a press does and to how many channels, "START 3 CH".
 * It acts on the InSync group (the band says SYNC, the line above names its channels), never on all
 * channels. A toggle says what it does now (it decides from the same live state), so start, pause and
 * stop keys of one group always read apart.
 */
export function syncActionText(action: SyncKeyAction, state: SyncPicture['state'], members: readonly number[]): string {
  const running = state === 'recording' || state === 'paused';
  const verb = action === 'toggle' ? (running ? 'STOP' : 'START') : action === 'pause-toggle' ? (state === 'paused' ? 'RESUME' : 'PAUSE') : action.toUpperCase();
  return `${verb} ${members.length} CH`;
}

export function syncPlan(picture: SyncPicture, size: PixelSize): TilePlan {
  const look = syncLook(picture);
  const faded = picture.state === 'stale' || picture.state === 'offline';
  const showsAge = faded && picture.ageS !== null;
  const showsOut = !showsAge && picture.outOfSync.length > 0;
  const footer: StateTileDynamic['footer'] = showsAge
    ? ageFooter(picture.ageS as number, picture.state)
    : showsOut
      ? { text: `OUT ${channelList(picture.outOfSync)}`, colour: WARNING.ink, bold: true }
      : picture.action !== null
        ? { text: syncActionText(picture.action, picture.state, picture.members), colour: faded ? NEUTRAL.muted : NEUTRAL.text, bold: true }
        : null;
  const clock = stateClock(picture.durationS, picture.state, faded);
  const identity: Identity = { lead: picture.members.length > 0 ? 'CH' : '', rest: picture.members.length > 0 ? channelList(picture.members) : 'no channels' };
  const base: StateTileBase = {
    look,
    faded,
    ident: null, // channel lists are digits and commas: always paintable
    clock: clock !== null,
    footer: footer === null ? 'none' : showsOut ? 'warning' : 'text',
    thumbnail: false,
  };
  return { baseKey: JSON.stringify(['sync', base]), baseSvg: () => stateTileSvg(base, size), thumbnail: null, ...stateTileOps({ identity: { identity, faded }, clock, footer }, size) };
}
