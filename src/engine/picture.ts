// What a control shows, as plain data. The engine derives pictures from the recorder's state with pure
// functions; renderers turn them into images (keys, strip cells) or LED states. Two equal pictures
// always look the same, so comparing pictures decides whether anything needs drawing.

/** How current the recorder data behind a picture is. */
export type Freshness = 'live' | 'stale' | 'offline';

/** A channel's state as one word, in order of what matters most to an operator. */
export type ChannelState =
  | 'offline'
  | 'stale'
  | 'wrong'
  | 'sync-recording'
  | 'paused'
  | 'recording'
  | 'armed'
  | 'no-source'
  | 'idle';

export type SyncGroupState = 'offline' | 'stale' | 'none' | 'armed' | 'recording' | 'paused';

/** Transient marks laid over any picture. */
export interface PictureOverlay {
  /** Hold-to-confirm progress, 0..1, drawn as a ring. */
  hold?: number;
  /** A command failed (red) or was refused because the state is unknown or stale (grey). */
  flash?: 'failed' | 'refused';
  /** First press of a double-press binding: press again to confirm. */
  armed?: boolean;
  /** The channel that transport keys act on. */
  selected?: boolean;
}

export interface ChannelPicture {
  kind: 'channel';
  /** 1-based, as operators count. */
  channel: number;
  state: ChannelState;
  /** When stale: what the channel was last confirmed doing (drawn dimmed); null otherwise. */
  lastSeen: Exclude<ChannelState, 'stale' | 'offline'> | null;
  source: string | null;
  /** Whole seconds of the take; null when not recording. */
  durationS: number | null;
  fps: number | null;
  drops: number;
  /** Shown when drops or breaks happen during the take, e.g. "DROP 12". */
  warning: string | null;
  /** Key of a thumbnail in the thumbnail store, or null. */
  thumbnail: string | null;
  /** Seconds since the last good answer, when not live. */
  ageS: number | null;
}

export interface SyncPicture {
  kind: 'sync';
  state: SyncGroupState;
  /** 1-based channels in InSync mode. */
  members: number[];
  /** InSync channels that are not recording with the group while it records. */
  outOfSync: number[];
  durationS: number | null;
  ageS: number | null;
}

export interface DialogPicture {
  kind: 'dialog';
  role: 'message' | 'ok' | 'cancel';
  /** A dialog is up (the key flashes, phase alternating each half second). */
  active: boolean;
  flashPhase: boolean;
  text: string;
  /** The dialog offers cancel (Yes_No); without it an ok key reads "OK" and cancel is inert. */
  offersCancel: boolean;
  ageS: number | null;
}

export interface ResourcesPicture {
  kind: 'resources';
  cpu: number | null;
  ram: number | null;
  /** The fullest disk. */
  disk: { label: string; used: number } | null;
  /** Something is above 90 %. */
  warning: boolean;
  freshness: Freshness;
}

export interface SchedulePicture {
  kind: 'schedule';
  enabled: boolean;
  start: string | null;
  stop: string | null;
  type: string;
  freshness: Freshness;
}

export interface MeterPicture {
  kind: 'meter';
  channel: number;
  source: string | null;
  /** dBFS per audio channel. */
  levels: number[];
  gainDb: number | null;
  freshness: Freshness;
}

export type IconName = 'record' | 'pause' | 'stop' | 'sync' | 'ok' | 'cancel' | 'next' | 'previous' | 'grid' | 'save' | 'load' | 'new' | 'schedule' | 'gain' | 'brightness' | 'macro';

export interface LabelPicture {
  kind: 'label';
  text: string;
  icon: IconName | null;
  /** Background as #rrggbb, or null for the default. */
  color: string | null;
  /** Lit when what the key controls is on (e.g. conversion enabled). */
  active: boolean | null;
}

export interface PagePicture {
  kind: 'page';
  name: string;
  /** 1-based. */
  number: number;
  count: number;
}

/** A recorder's status and the surface's page, for an info bar (Stream Deck Neo) or a key. */
export interface StatusPicture {
  kind: 'status';
  recorder: string;
  freshness: Freshness;
  ageS: number | null;
  /** Channels recording now. */
  recording: number;
  dialog: boolean;
  page: { name: string; number: number; count: number };
}

export interface BlankPicture {
  kind: 'blank';
}

export type PictureBody =
  | ChannelPicture
  | SyncPicture
  | DialogPicture
  | ResourcesPicture
  | SchedulePicture
  | MeterPicture
  | LabelPicture
  | PagePicture
  | StatusPicture
  | BlankPicture;

export type Picture = PictureBody & { overlay?: PictureOverlay };

export const BLANK: Picture = { kind: 'blank' };

/** A stable text for a picture: equal pictures give equal keys (for caches and change detection). */
export function pictureKey(picture: Picture): string {
  return JSON.stringify(picture);
}
