// A channel key: state band, number and source, the take's clock, and fps, a warning or the data's age.
import type { ChannelPicture } from '../../engine/picture.js';
import type { PixelSize, RgbImage } from '../../engine/surface.js';
import { AGE_INK, CHANNEL_LOOKS, NEUTRAL, WARNING, ageText, staleLook, type OwnLookState, type StateLook } from '../palette.js';
import type { TilePlan } from './plan.js';
import { ageFooter, paintable, stateClock, stateTileLayout, stateTileOps, stateTileSvg, type Identity, type StateTileBase, type StateTileDynamic } from './state-tile.js';

/**
 * What a stale channel was last seen doing: as the engine recorded it, else as far as the picture tells
 * (a running clock means a take, paused when it has no fps; otherwise whether it had a source).
 */
export function underlyingState(picture: ChannelPicture): OwnLookState {
  if (picture.lastSeen !== null) return picture.lastSeen;
  if (picture.durationS !== null) return picture.fps === null ? 'paused' : 'recording';
  return picture.source === null ? 'no-source' : 'idle';
}

export function channelLook(picture: ChannelPicture): StateLook {
  return picture.state === 'stale' ? staleLook(CHANNEL_LOOKS[underlyingState(picture)]) : CHANNEL_LOOKS[picture.state];
}

function formatFps(fps: number): string {
  return `${Number(fps.toFixed(2))} fps`;
}

export function channelPlan(picture: ChannelPicture, size: PixelSize, thumbnail: RgbImage | undefined): TilePlan {
  const look = channelLook(picture);
  const faded = picture.state === 'stale' || picture.state === 'offline';
  const showsAge = picture.ageS !== null && faded;
  const showsWarning = !showsAge && picture.warning !== null;
  // A preview past its time as live (its fetches failing while the state is live) is dimmed as stale
  // data is, and its age is in the footer unless something more urgent is.
  const previewAgeS = thumbnail === undefined ? undefined : picture.previewAgeS;
  // The footer says the most urgent of: how old the data is, a problem with the take, frames waiting to
  // be written, the frame rate; "AUD" marks the channel whose audio the recorder plays.
  const audio = picture.audioPreview ? ' AUD' : '';
  const footer: StateTileDynamic['footer'] =
    picture.ageS !== null && showsAge
      ? ageFooter(picture.ageS, picture.state)
      : picture.warning !== null
        ? { text: picture.warning, colour: WARNING.ink, bold: true }
        : picture.buffered > 0
          ? { text: `BUF ${picture.buffered}${audio}`, colour: WARNING.ink, bold: true }
          : previewAgeS !== undefined
            ? { text: `PIC ${ageText(previewAgeS)}`, colour: AGE_INK, bold: true }
            : picture.fps !== null
            ? { text: `${formatFps(picture.fps)}${audio}`, colour: faded ? NEUTRAL.muted : '#D0D0D0', bold: false }
            : audio !== ''
              ? { text: 'AUD', colour: faded ? NEUTRAL.muted : '#D0D0D0', bold: false }
              : null;
  const clock = stateClock(picture.durationS, picture.state, faded);
  const identity: Identity = { lead: String(picture.channel), rest: picture.source ?? '' };
  const painted = paintable(identity);
  const base: StateTileBase = {
    look,
    faded,
    ident: painted ? null : identity,
    clock: clock !== null,
    footer: footer === null ? 'none' : showsWarning ? 'warning' : 'text',
    thumbnail: thumbnail !== undefined,
    ...(previewAgeS === undefined ? {} : { staleThumbnail: true }),
  };
  return {
    baseKey: JSON.stringify(['channel', base]),
    baseSvg: () => stateTileSvg(base, size),
    thumbnail: thumbnail === undefined ? null : { image: thumbnail, rect: stateTileLayout(size).body },
    ...stateTileOps({ identity: painted ? { identity, faded } : null, clock, footer }, size),
  };
}
