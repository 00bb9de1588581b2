// The web deck's protocol, both directions, in one place: what the bridge sends a page over its
// WebSocket (JSON text messages; key images go as binary frames, image-frames.ts) and what a page sends
// the bridge. The zod schemas are the single source of truth: the bridge builds every text message it
// sends through `encodeServerMessage`/`sendServerMessage` (typed from the schema, so a message of the
// wrong shape does not compile), it checks every message a page sends with `PageMessage`, the page's
// checked JavaScript (src/remote/page, `// @ts-check` under its own tsconfig) takes its message types
// from here (`@typedef {import('../deck-protocol.js').ServerMessage}`), and `npm run schema` writes the
// JSON Schema of both directions (profiles/web/) for anyone writing another client.
//
// This module imports only zod and the alarm wire schema (itself zod only): the page's type check reads
// it under the DOM's lib, without Node's types.
import * as z from 'zod';
import { AlarmWire } from '../engine/alarms/alarm.js';

// ---- server to page ----

const PixelSize = z.strictObject({ width: z.number().int().positive(), height: z.number().int().positive() });

/** A control as the page lays it out and presses it (engine/surface.ts: ControlDefinition). */
export const DeckControl = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('key'), id: z.string(), row: z.number().int().min(0), column: z.number().int().min(0), pixelSize: PixelSize }),
  z.strictObject({ kind: z.literal('button'), id: z.string(), feedback: z.enum(['none', 'led']) }),
  z.strictObject({ kind: z.literal('encoder'), id: z.string(), pressable: z.boolean(), ring: z.boolean(), lcd: z.string().optional() }),
  z.strictObject({ kind: z.literal('fader'), id: z.string(), motorised: z.boolean() }),
  z.strictObject({ kind: z.literal('lcd'), id: z.string(), pixelSize: PixelSize, touch: z.boolean() }),
]);
export type DeckControl = z.output<typeof DeckControl>;

/** A deck the page shows: web decks to use, hardware decks to watch and press remotely. */
export const DeckPanel = z.strictObject({
  id: z.string(),
  kind: z.enum(['streamdeck', 'xkeys', 'midi', 'web', 'memory', 'satellite']),
  name: z.string(),
  model: z.string(),
  /** Keys per row and each key's size on screen in CSS pixels (panel-layout.ts). */
  layout: z.strictObject({ columns: z.number().int().min(0), keySize: z.number().positive() }),
  controls: z.array(DeckControl),
});
export type DeckPanel = z.output<typeof DeckPanel>;

/** On connect and whenever surfaces come or go: the decks, in page order (the page builds them afresh, keys blank). */
export const HelloMessage = z.strictObject({ type: z.literal('hello'), surfaces: z.array(DeckPanel) });

const Freshness = z.enum(['live', 'stale', 'offline']);

/** What the bridge knows, as GET /state answers it (state-view.ts). */
export const DeckState = z.strictObject({
  recorders: z.array(
    z.strictObject({
      name: z.string(),
      url: z.string(),
      freshness: Freshness,
      /** Seconds since the last good answer; null if there was none. */
      ageS: z.number().nullable(),
      lastError: z.string().nullable(),
      channels: z.array(
        z.strictObject({
          number: z.number().int().min(1),
          state: z.enum(['offline', 'stale', 'wrong', 'sync-recording', 'sync-paused', 'paused', 'recording', 'armed', 'no-source', 'idle']),
          source: z.string().nullable(),
          destinations: z.array(z.string()),
          durationS: z.number().nullable(),
          fps: z.number().nullable(),
          drops: z.number(),
          freshness: Freshness,
          ageS: z.number().nullable(),
        }),
      ),
      sync: z.strictObject({ recording: z.boolean(), paused: z.boolean() }).nullable(),
      dialog: z.strictObject({ shown: z.boolean(), text: z.string(), buttons: z.string() }).nullable(),
      disks: z.array(
        z.strictObject({
          disk: z.string(),
          usedPercent: z.number(),
          secondsLeft: z.number().nullable(),
          percentPerMinute: z.number().nullable(),
          level: z.enum(['ok', 'amber', 'red']).nullable(),
          freshness: Freshness,
          ageS: z.number().nullable(),
        }),
      ),
    }),
  ),
  surfaces: z.array(
    z.strictObject({
      id: z.string(),
      kind: z.string(),
      model: z.string(),
      name: z.string(),
      profile: z.string(),
      profileTie: z.strictObject({ winner: z.string(), others: z.array(z.string()), origin: z.enum(['shipped', 'operator']) }).nullable(),
      page: z.strictObject({ name: z.string(), number: z.number().int(), count: z.number().int() }),
    }),
  ),
});
export type DeckState = z.output<typeof DeckState>;

/** A command the bridge carried out or refused (engine/log.ts: CommandRecord), for the audit list. */
export const DeckCommand = z.strictObject({
  /** ms since the epoch. */
  at: z.number(),
  surface: z.string(),
  control: z.string(),
  action: z.string(),
  recorder: z.string().nullable(),
  request: z.string().nullable(),
  result: z.enum(['ok', 'failed', 'refused']),
  message: z.string().nullable(),
  requestAfterMs: z.number().nullable(),
  latencyMs: z.number(),
});
export type DeckCommand = z.output<typeof DeckCommand>;

/** The state, at most a few times a second and each second when changed; the first of a link carries the recent commands. */
export const StateMessage = z.strictObject({ type: z.literal('state'), state: DeckState, commands: z.array(DeckCommand).optional() });

/** Each command as it is carried out or refused. */
export const CommandMessage = z.strictObject({ type: z.literal('command'), record: DeckCommand });

/** A pad's, pedal's or LED button's light, as the deck shows it. */
export const LedMessage = z.strictObject({
  type: z.literal('led'),
  surface: z.string(),
  control: z.string(),
  state: z.enum(['off', 'idle', 'active', 'recording', 'paused', 'armed', 'sync-recording', 'wrong', 'no-source', 'stale', 'offline', 'dialog', 'holding']),
});

/** A ring's share or a fader's place on its travel, 0..1. */
export const LevelMessage = z.strictObject({ type: z.literal('level'), surface: z.string(), control: z.string(), level: z.number().min(0).max(1) });

/**
 * An alarm as the page is sent it: the wire form of GET /alarms, and its kind in a word or two as the
 * alarms key says it (alarm-picture.ts's ALARM_WORDS: the one table; the page keeps no copy).
 */
export const PageAlarm = AlarmWire.extend({ word: z.string().min(1) });

/**
 * The alarms, whole, on connect and after every raise, acknowledgement and clear (alarm-message.ts):
 * every active alarm, worst first.
 */
export const AlarmsMessage = z.strictObject({ type: z.literal('alarms'), active: z.array(PageAlarm) });
export type AlarmsMessage = z.output<typeof AlarmsMessage>;

/** A message from the page that was ignored, and why. */
export const ErrorMessage = z.strictObject({ type: z.literal('error'), message: z.string() });

/** Every text message the bridge sends a page. */
export const ServerMessage = z.discriminatedUnion('type', [HelloMessage, StateMessage, CommandMessage, LedMessage, LevelMessage, AlarmsMessage, ErrorMessage]);
export type ServerMessage = z.output<typeof ServerMessage>;

declare const encoded: unique symbol;
/** A server message as text for the socket, made only by encodeServerMessage. */
export type EncodedServerMessage = string & { readonly [encoded]: true };

/** A message as the text sent (once, for as many pages as it goes to). */
export function encodeServerMessage(message: ServerMessage): EncodedServerMessage {
  return JSON.stringify(message) as EncodedServerMessage;
}

/** The one way a text message reaches a page. */
export function sendServerMessage(socket: { send(text: string): void }, message: ServerMessage | EncodedServerMessage): void {
  socket.send(typeof message === 'string' ? message : encodeServerMessage(message));
}

// ---- page to server ----

/** A press, release, turn or touch on a deck's control. */
export const PageInput = z.strictObject({
  type: z.literal('input'),
  surface: z.string(),
  input: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('down'), control: z.string() }),
    z.strictObject({ type: z.literal('up'), control: z.string() }),
    // The browser took the pointer away (a swipe turned into a scroll): let go without firing.
    z.strictObject({ type: z.literal('cancel'), control: z.string() }),
    z.strictObject({ type: z.literal('rotate'), control: z.string(), amount: z.number().int().min(-100).max(100) }),
    z.strictObject({ type: z.literal('touch'), control: z.string(), gesture: z.enum(['tap', 'long', 'swipe-left', 'swipe-right']) }),
  ]),
});

/** The decks a page has in view now, by surface id (ids it does not know are ignored: decks come and go). */
export const PageView = z.strictObject({ type: z.literal('view'), surfaces: z.array(z.string()).max(64) });

/**
 * How many image messages (binary) the page has drawn on this link so far, counted from its first. A page
 * that sends it (the first at once, with 0) is sent no more than a few image messages ahead of what it
 * has drawn: a page that draws slower than the bridge draws (a phone, a starved tab) then shows the
 * newest image of each key once it has drawn the last, instead of working through seconds of old ones
 * that the sockets between them hold (the bridge's unsent bytes do not see those).
 */
export const PageDrawn = z.strictObject({ type: z.literal('drawn'), images: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

/** Every message a page sends the bridge. */
export const PageMessage = z.discriminatedUnion('type', [PageInput, PageView, PageDrawn]);
export type PageMessage = z.output<typeof PageMessage>;
