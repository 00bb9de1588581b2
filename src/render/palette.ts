// Colours and state looks. Every state is told apart by a word and a symbol (and for some a pattern or
// border) as well as by colour, so operators with any colour vision, and anyone glancing at a dim key in
// daylight, can read it. The colours are the Okabe–Ito set, chosen to stay distinct under the common
// colour-vision deficiencies.
import type { ChannelState, SyncGroupState } from '../engine/picture.js';

export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** Backgrounds and text that are not a state's own colour. */
export const NEUTRAL = {
  /** Body of a tile (below the state band). */
  body: '#101010',
  text: '#FFFFFF',
  muted: '#A6A6A6',
  /** Idle band: dark enough to read as "nothing happening" next to the coloured states. */
  idle: '#3C3C3C',
  /** No-source band: a lighter grey than idle, plus a dashed border. */
  noSource: '#8C8C8C',
  offlineInk: '#8C8C8C',
  /** The cross drawn over an offline tile. */
  offlineCross: '#3A3A3A',
  /** Backing behind text over a thumbnail, drawn translucent. */
  scrim: '#000000',
} as const;

/** How a state's symbol is drawn (see tiles/symbols.ts). */
export type StateSymbol = 'hollow-circle' | 'filled-circle' | 'bars' | 'link' | 'ring-dot' | 'ring-bars' | 'hazard' | 'no-source' | 'cross';

export interface StateLook {
  /** Shown in the band, upper case. */
  word: string;
  /** Band background, #RRGGBB. */
  band: string;
  /** Text and symbol on the band. */
  ink: string;
  symbol: StateSymbol;
  /** Hazard stripes behind the body (a fault must be noticed without reading the word). */
  hazard: boolean;
  /** A dashed border around the tile (nothing to record). */
  dashed: boolean;
  /** The tile is black with a cross (no contact with the recorder). */
  crossed: boolean;
}

const look = (word: string, band: string, ink: string, symbol: StateSymbol, extra: Partial<Pick<StateLook, 'hazard' | 'dashed' | 'crossed'>> = {}): StateLook => ({
  word,
  band,
  ink,
  symbol,
  hazard: extra.hazard ?? false,
  dashed: extra.dashed ?? false,
  crossed: extra.crossed ?? false,
});

/** States whose look stands on its own; 'stale' is drawn as the underlying look dimmed (staleLook). */
export type OwnLookState = Exclude<ChannelState, 'stale'>;

export const CHANNEL_LOOKS: Readonly<Record<OwnLookState, StateLook>> = {
  idle: look('READY', NEUTRAL.idle, NEUTRAL.text, 'hollow-circle'),
  recording: look('REC', OKABE_ITO.vermillion, NEUTRAL.text, 'filled-circle'),
  // Yellow is light: dark ink keeps the word readable.
  paused: look('PAUSED', OKABE_ITO.yellow, '#1A1A1A', 'bars'),
  armed: look('SYNC', OKABE_ITO.blue, NEUTRAL.text, 'link'),
  'sync-recording': look('SYNC REC', OKABE_ITO.reddishPurple, '#1A1A1A', 'ring-dot'),
  // The sync take paused: paused's yellow, but the sync take's ring around the bars and its own word, so
  // it never reads as one channel paused alone ("SYNC PAUSE" would shrink to a few px on a 72 px key).
  'sync-paused': look('SYNC ||', OKABE_ITO.yellow, '#1A1A1A', 'ring-bars'),
  wrong: look('FAULT', OKABE_ITO.orange, '#1A1A1A', 'hazard', { hazard: true }),
  'no-source': look('NO SOURCE', NEUTRAL.noSource, '#1A1A1A', 'no-source', { dashed: true }),
  offline: look('OFFLINE', OKABE_ITO.black, NEUTRAL.offlineInk, 'cross', { crossed: true }),
};

/** Sync group states that are not freshness states. */
export type OwnSyncState = Exclude<SyncGroupState, 'stale' | 'offline'>;

export const SYNC_LOOKS: Readonly<Record<OwnSyncState, StateLook>> = {
  none: look('NO SYNC', NEUTRAL.idle, NEUTRAL.text, 'hollow-circle'),
  armed: CHANNEL_LOOKS.armed,
  recording: CHANNEL_LOOKS['sync-recording'],
  paused: CHANNEL_LOOKS['sync-paused'],
};

/** How much of a colour is left when stale: clearly darker, still recognisably the same hue. */
export const STALE_DIM = 0.45;

/** The colour scaled towards black by factor (1 = unchanged). */
export function dimmed(hex: string, factor = STALE_DIM): string {
  const [r, g, b] = hexToRgb(hex);
  return rgbToHex([r * factor, g * factor, b * factor]);
}

/** The underlying look dimmed: the band says what the channel was doing, the age text says how long ago. */
export function staleLook(underlying: StateLook): StateLook {
  return { ...underlying, band: dimmed(underlying.band), ink: dimmed(underlying.ink, 0.7) };
}

/** Text shown on a stale tile, e.g. "5s old", "3m old", "2h old". */
export function ageText(ageS: number): string {
  const s = Math.max(0, Math.floor(ageS));
  if (s < 60) return `${s}s old`;
  if (s < 3600) return `${Math.floor(s / 60)}m old`;
  return `${Math.floor(s / 3600)}h old`;
}

/** Age text colour: bright, because on a dimmed tile it is the news. */
export const AGE_INK = '#FFFFFF';

/** Tint and word laid over a control after a command. */
export const FLASH = {
  failed: { tint: '#E8101A', ink: '#FFFFFF', word: 'FAILED' },
  refused: { tint: '#7A7A7A', ink: '#FFFFFF', word: 'REFUSED' },
} as const;

/** Hold-to-confirm ring: sky blue is the one Okabe–Ito colour no state uses, so it never reads as a state. */
export const HOLD_RING = OKABE_ITO.skyBlue;
/** The part of the ring still to fill keeps this fraction of the brightness below it. */
export const HOLD_TRACK_DIM = 0.35;

/** "Press again" prompt of a double-press binding. */
export const ARMED_PROMPT = { box: '#FFFFFF', ink: '#000000', word: 'AGAIN?' } as const;

/** "Hold it" hint after a tap on a key that wants a hold: the hold ring's colour, so the two read together. */
export const HOLD_HINT = { box: OKABE_ITO.skyBlue, ink: '#1A1A1A', word: 'HOLD' } as const;

/** The corner mark of a key that wants more than a tap: sky blue for a hold (like its ring), white for a double press (like its prompt). */
export const GESTURE_MARK = { hold: OKABE_ITO.skyBlue, double: '#FFFFFF' } as const;

export const SELECTED_FRAME = '#FFFFFF';

/** A take's problems (drops, breaks) and resources above 90 %: orange strip, dark text. */
export const WARNING = { box: OKABE_ITO.orange, ink: '#1A1A1A' } as const;

/** A disk's time left: amber under the first threshold (the warning look), red under the second (the failure's red). */
export const DISK_LEFT = { amber: WARNING, red: { box: FLASH.failed.tint, ink: FLASH.failed.ink } } as const;

/** Dialog keys: bright while flashing on, dim otherwise. */
export const DIALOG = {
  message: { bright: OKABE_ITO.skyBlue, ink: '#1A1A1A' },
  ok: { bright: OKABE_ITO.bluishGreen, ink: '#FFFFFF' },
  cancel: { bright: OKABE_ITO.vermillion, ink: '#FFFFFF' },
  dim: '#262626',
  dimInk: '#8C8C8C',
} as const;

/** Audio meter segments: position on the scale says as much as the colour. */
export const METER = { low: OKABE_ITO.bluishGreen, high: OKABE_ITO.yellow, over: OKABE_ITO.vermillion, track: '#262626' } as const;

export const LABEL = { background: '#262626', lit: OKABE_ITO.blue } as const;

export type Rgb = readonly [number, number, number];

/** #RRGGBB to 0..255 components; anything else is a programming error here (palette colours are constants, profile colours are validated). */
export function hexToRgb(hex: string): Rgb {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (match === null) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(match[1] as string, 16), parseInt(match[2] as string, 16), parseInt(match[3] as string, 16)];
}

export function rgbToHex(rgb: readonly number[]): string {
  return `#${rgb.map((c) => Math.round(Math.min(255, Math.max(0, c))).toString(16).padStart(2, '0')).join('').toUpperCase()}`;
}

/** Dark or light ink for text on the colour, by its relative luminance. */
export function inkOn(hex: string): string {
  const [r, g, b] = hexToRgb(hex).map((c) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.3 ? '#1A1A1A' : '#FFFFFF';
}
