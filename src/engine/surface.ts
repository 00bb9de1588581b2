// The one interface every control surface (Stream Deck, MIDI, web deck, in-memory) implements. A
// surface describes its controls as data and speaks in control ids; the engine never knows which
// device is behind it. What it shows goes out through its DeviceOutput; what is done on it comes in on
// its input, from the device and from elsewhere (a page, the remote API) alike.
import type { Observable } from 'rxjs';
import type { DeviceOutput } from './device-output.js';

export type SurfaceKind = 'streamdeck' | 'xkeys' | 'midi' | 'web' | 'memory' | 'satellite';

export interface PixelSize {
  width: number;
  height: number;
}

/** A key with its own display (Stream Deck key, web key). */
export interface KeyControl {
  kind: 'key';
  id: string;
  row: number;
  column: number;
  pixelSize: PixelSize;
}

/** A button whose only feedback is a light, or none (pedal, MIDI pad, LED button). */
export interface ButtonControl {
  kind: 'button';
  id: string;
  feedback: 'none' | 'led';
}

/** A dial or encoder: turns by a signed amount, may be pressed, may have an LED ring. */
export interface EncoderControl {
  kind: 'encoder';
  id: string;
  pressable: boolean;
  ring: boolean;
  /** The LCD segment drawn above it (Stream Deck Plus strip cell), if any. */
  lcd?: string;
}

/** An absolute fader or knob: position 0..1; motorised ones can be moved by the bridge. */
export interface FaderControl {
  kind: 'fader';
  id: string;
  motorised: boolean;
}

/** A region of an LCD strip or info bar, drawn as an image; may take touches. */
export interface LcdControl {
  kind: 'lcd';
  id: string;
  pixelSize: PixelSize;
  touch: boolean;
}

/** Keys laid out in rows and columns, named key0, key1, … left to right, top to bottom. */
export function keyGrid(rows: number, columns: number, size: number): KeyControl[] {
  return Array.from({ length: rows * columns }, (_, i) => ({
    kind: 'key' as const,
    id: `key${i}`,
    row: Math.floor(i / columns),
    column: i % columns,
    pixelSize: { width: size, height: size },
  }));
}

export type ControlDefinition = KeyControl | ButtonControl | EncoderControl | FaderControl | LcdControl;

export type TouchGesture = 'tap' | 'long' | 'swipe-left' | 'swipe-right';

export type SurfaceInput =
  /** `origin` names who pressed when a surface has several sources (web clients); a lost origin lets go. */
  | { type: 'down'; control: string; origin?: string }
  | { type: 'up'; control: string; origin?: string }
  /**
   * A source can no longer report releases (client gone, port lost, a touch turned into a scroll):
   * what it holds is let go, firing nothing. Without an origin: every source; with a control: that one only.
   */
  | { type: 'lost'; origin?: string; control?: string }
  /** Signed detents; speed is kept (a fast turn is a larger amount). */
  | { type: 'rotate'; control: string; amount: number }
  /** Absolute position 0..1. */
  | { type: 'fader'; control: string; position: number }
  | { type: 'touch'; control: string; gesture: TouchGesture };

// What a device shows is described with its output.
export type { LedState, RgbImage } from './device-output.js';

export interface Surface {
  /** Unique and stable across reconnects, e.g. "streamdeck:CL12345", "web:15-key", "midi:APC mini mk2". */
  readonly id: string;
  readonly kind: SurfaceKind;
  /** Model id a profile can match (e.g. "xl", "plus", "apc-mini-mk2", "web-15"). */
  readonly model: string;
  /** Human name (product name, MIDI port name). */
  readonly name: string;
  readonly serial?: string;
  /**
   * The surface of another kind whose profiles it takes when none of its own kind fits, below any that
   * does (a Satellite device of a Stream Deck's shape gets the shipped Stream Deck profile).
   */
  readonly standsInFor?: { kind: SurfaceKind; model: string };
  readonly controls: readonly ControlDefinition[];
  /**
   * Everything pressed, turned, moved or touched, on the device and injected: the one route by which
   * input reaches the engine. Completes when the surface goes away for good.
   */
  readonly input: Observable<SurfaceInput>;
  /**
   * Input from elsewhere than the device (a page, the remote API), passed on `input` like the device's
   * own: a remote press is a press. A web deck has no other.
   */
  inject(input: SurfaceInput): void;
  /**
   * Whether anyone can see it (a web deck: while a page is open). Nothing is drawn or fetched for a
   * surface nobody sees; absent for devices, which are always seen.
   */
  readonly watched$?: Observable<boolean>;
  /** Everything it shows goes out through this, the one queue and record of what it shows. */
  readonly output: DeviceOutput;
}

/** A surface appearing (plugged in, port found) or going away (unplugged, error). */
export type SurfaceEvent = { type: 'added'; surface: Surface } | { type: 'removed'; id: string };

/** Finds and keeps the surfaces of one kind (Stream Decks, MIDI ports); the bridge follows its events. */
export interface SurfaceSource {
  readonly name: string;
  readonly surfaces$: Observable<SurfaceEvent>;
  start(): void;
  stop(): Promise<void>;
}
