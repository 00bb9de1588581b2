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
  /** Paused as part of the sync take (the group's pause), told apart from a channel paused alone. */
  | 'sync-paused'
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
  /** Why: the recorder's message or the refusal, whole, shown under the flash word. */
  reason?: string;
  /**
   * Reading periods since the flash began: a reason longer than the key holds at a legible size is shown
   * a page at a time, page reasonPage modulo the pages it needs at that size.
   */
  reasonPage?: number;
  /** A tap that did nothing because the key wants a hold: "HOLD" shows on it for a moment. */
  hint?: 'hold';
  /** How the key must be used beyond a tap, marked in its corner at all times. */
  gesture?: 'hold' | 'double';
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
  /** Shown when drops or breaks happen during the take, e.g. "DROP 12", or "FAULT" when the recorder reports a problem while it records. */
  warning: string | null;
  /** Frames waiting to be written during the take (the recorder's RecordingBuffered) when more than a second of video waits; else 0. */
  buffered: number;
  /** The recorder plays this channel's audio (IsAudioPreview). */
  audioPreview: boolean;
  /** Key of a thumbnail in the thumbnail store, or null. */
  thumbnail: string | null;
  /** Seconds since the last good answer, when not live. */
  ageS: number | null;
  /**
   * Whole seconds since the preview shown was fetched, when it is past its time as live (its fetches
   * failing or slow while the channel's state is live): it is drawn dimmed with this age. Absent while
   * the preview is current, or when there is none.
   */
  previewAgeS?: number;
}

/** What a sync key does on press, so start, pause and stop keys of one group look different. */
export type SyncKeyAction = 'start' | 'pause' | 'stop' | 'toggle' | 'pause-toggle';

export interface SyncPicture {
  kind: 'sync';
  state: SyncGroupState;
  /** The key's own press action, or null when it has none of the group's. */
  action: SyncKeyAction | null;
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
  /**
   * A counter that moves on every few seconds while the dialog is up: a message longer than the key holds
   * at a legible size is shown a page at a time, page textPage modulo the pages it needs at that size.
   */
  textPage: number;
  /** The dialog offers cancel (Yes_No); without it an ok key reads "OK" and cancel is inert. */
  offersCancel: boolean;
  /**
   * Message keys: this key's place (0-based, in reading order) among the keys of the page that together
   * show the text, and how many they are; each shows its share. 0 of 1 for a lone dialog key.
   */
  slot: number;
  slots: number;
  ageS: number | null;
}

export interface ResourcesPicture {
  kind: 'resources';
  cpu: number | null;
  ram: number | null;
  /** The fullest disk. */
  disk: { label: string; used: number } | null;
  /** The disk that fills first while channels record, once its rate is steady: whole minutes left, and how urgent (amber, red). */
  timeLeft: { disk: string; minutes: number; level: 'ok' | 'amber' | 'red' } | null;
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
  /** dBFS per audio channel, while the read that brought them is live; null when there is no live read. */
  levels: readonly number[] | null;
  gainDb: number | null;
  /** How current the gain is, by its own age (a read, or a write this bridge owns), not the channels'. */
  freshness: Freshness;
  /** Seconds since the gain shown was read or written, when it is not live. */
  ageS: number | null;
}

/** A grid key: the recorder's grid size now (its channel count) and the size the key sets. */
export interface GridPicture {
  kind: 'grid';
  channels: number | null;
  target: number | null;
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

/**
 * An alarms key (`show: alarms`, alarm-picture.ts): the alarm book of the alarm engine, derived from it
 * when drawn. Calm with no alarm; flashing while one waits for an acknowledgement; with its age and not
 * flashing when the book is not kept up (stale), and offline when there is no alarm engine to read.
 */
export interface AlarmsPicture {
  kind: 'alarms';
  /** Active alarms, acknowledged or not; null when the book was never judged (nothing known). */
  count: number | null;
  /** Of those, how many wait for an acknowledgement. */
  waiting: number;
  /** The worst active alarm, in a few words: what, where. */
  worst: { word: string; recorder: string; channel: number | null; severity: 'warning' | 'critical'; acked: boolean } | null;
  /** Some alarm waits for an acknowledgement and the book is live: the key flashes, phase alternating each half second. */
  flashing: boolean;
  flashPhase: boolean;
  freshness: Freshness;
  /** Seconds since the book was last judged, when not live. */
  ageS: number | null;
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
  | GridPicture
  | LabelPicture
  | PagePicture
  | StatusPicture
  | AlarmsPicture
  | BlankPicture;

export type Picture = PictureBody & { overlay?: PictureOverlay };

export const BLANK: Picture = { kind: 'blank' };

/** A stable text for a picture: equal pictures give equal keys (for caches and change detection). */
export function pictureKey(picture: Picture): string {
  return JSON.stringify(picture);
}

/**
 * Whether two pictures are the same data (a property set to undefined counts as absent, as in
 * pictureKey). Surfaces compare every control's picture on every refresh, most of them unchanged: this
 * compares in place, where a key would build a string for each.
 */
export function samePicture(a: Picture, b: Picture): boolean {
  return sameData(a, b);
}

/** samePicture for any two values: equal primitives, or objects and arrays of the same data. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key in left) if (!sameData(left[key], right[key])) return false;
  for (const key in right) if (!(key in left) && right[key] !== undefined) return false;
  return true;
}
