// Every LED a shipped map declares is on a control that has one, lit by the message that lights it.
// The tables below list, for each model, which controls have LEDs (by the message the control sends)
// and the message that lights each, from the maker's published MIDI implementation; the map names the
// same source in its ledSource. Where the makers' PDFs are reproduced in open-source drivers, those
// were used to read them (not copied):
// - Akai APC mini mk2 Communication Protocol v1.0: pads notes 0-63, track buttons 100-107, scene
//   buttons 112-119 lit by their own note (channel = brightness/animation); shift (122) has no LED.
//   Reproduced in Ardour's APC mini mk2 binding map.
// - Novation Launchpad Mini [MK3] Programmer's Reference Manual: in Programmer mode the pads are notes
//   11-88, the top buttons CC 91-98, the side buttons CC 19-89, each lit by its own note/CC (channel =
//   static, flashing, pulsing). Reproduced in Zynthian's Launchpad Mini MK3 driver and launchpad.py.
// - Korg nanoKONTROL2 MIDI Implementation: in External LED mode the S, M, R buttons (CC 32-39, 48-55,
//   64-71) and the transport buttons play, stop, rewind, forward, record, cycle (CC 41-46) are lit by
//   their own CC; track < > (58, 59) and marker set < > (60-62) have no LED. The CC numbers are
//   reproduced in open-source drivers (David Granström's SuperCollider NanoKontrol2 class).
// - Behringer X-TOUCH MINI MIDI implementation (Standard mode): button LEDs by note 0-15 on the global
//   channel; in layer A the upper buttons send notes 8-15 and the lower 16-23 on channel 11, encoder
//   presses notes 0-7 (no LED of their own: the ring belongs to the encoder). Reproduced in Jon Skeet's
//   XTouchMini Standard-mode controller and other open-source drivers.
// - Akai MIDImix: no maker's chart found; Zynthian's driver lights mute (1, 4, … 22), rec arm (3, 6,
//   … 24) and bank left/right (25, 26) by their own note; solo (27) has no LED.
// - Mackie Control protocol (MC mode; reproduced in controllers' MC-mode manuals and Ardour's Mackie
//   support): every button's LED is lit by a note-on to its own note on channel 1 (127 on, 1 blinking,
//   0 off): transport 91-95, the strips' REC 0-7. Faders are pitch bend and have no LED.
// - DAW transport (MMC): commands from software, no LEDs at all.
// - The generic template has no hardware: its table is its own assumption (pads 36-51).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMidiMapFolder } from '../../../src/surfaces/midi/load-midi-map.js';
import type { LedValue, MidiControl } from '../../../src/surfaces/midi/midi-map.js';

const MAPS = join(import.meta.dirname, '../../../profiles/midi');

/** How a control is told apart (what it sends) and how its LED is addressed. */
type Address = `${'note' | 'cc'}/${number}/${number}`;

interface LedTable {
  source: string;
  /** The channel the LED message goes on, or 'mode' when the channel picks the lighting mode. */
  ledChannel: number | 'mode';
  /** Control (kind/channel/number it sends) → LED (kind/number it is lit by). */
  leds: ReadonlyMap<Address, `${'note' | 'cc'}/${number}`>;
}

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
const same = (kind: 'note' | 'cc', channel: number, numbers: number[]) => numbers.map((n) => [`${kind}/${channel}/${n}` as Address, `${kind}/${n}` as const] as const);

const TABLES: Readonly<Record<string, LedTable>> = {
  'apc-mini-mk2': {
    source: 'Akai APC mini mk2 Communication Protocol v1.0 (pad, track and scene button LEDs)',
    ledChannel: 'mode',
    leds: new Map(same('note', 1, [...range(0, 63), ...range(100, 107), ...range(112, 119)])),
  },
  'launchpad-mini-mk3': {
    source: "Novation Launchpad Mini [MK3] Programmer's Reference Manual (Programmer mode layout, LED lighting)",
    ledChannel: 'mode',
    leds: new Map([...same('note', 1, range(1, 8).flatMap((row) => range(row * 10 + 1, row * 10 + 8))), ...same('cc', 1, [...range(91, 98), ...range(19, 89, 10)])]),
  },
  nanokontrol2: {
    source: 'Korg nanoKONTROL2 MIDI Implementation (LED control in External LED mode)',
    ledChannel: 1,
    leds: new Map(same('cc', 1, [...range(32, 39), ...range(48, 55), ...range(64, 71), ...range(41, 46)])),
  },
  'x-touch-mini': {
    source: 'Behringer X-TOUCH MINI MIDI implementation (RX, Standard mode; button LEDs by note 0-15 on the global channel)',
    ledChannel: 1,
    leds: new Map(range(0, 15).map((led) => [`note/11/${led + 8}` as Address, `note/${led}` as const])),
  },
  midimix: {
    source: "Akai MIDImix factory mapping as reproduced by Zynthian's driver (mute, rec arm and bank LEDs; no maker's chart found)",
    ledChannel: 1,
    leds: new Map(same('note', 1, [...range(1, 22, 3), ...range(3, 24, 3), 25, 26])),
  },
  'mackie-control': {
    source: "Mackie Control protocol (button LEDs by note-on to the button's note on channel 1; 127 on, 1 blinking, 0 off)",
    ledChannel: 1,
    leds: new Map(same('note', 1, [...range(0, 7), ...range(91, 95)])),
  },
  'daw-mmc': {
    source: 'none (MMC commands have no LEDs)',
    ledChannel: 1,
    leds: new Map(),
  },
  'generic-midi': {
    source: 'none (a template; its LEDs are assumed, see above)',
    ledChannel: 1,
    leds: new Map(same('note', 1, range(36, 51))),
  },
};

function channelsOf(control: MidiControl): number[] {
  const led = control.led;
  if (led === undefined) return [];
  const values = Object.values(led.values).filter((v): v is LedValue => v !== undefined);
  return values.map((value) => (typeof value === 'number' ? (led.channel ?? control.channel) : value.channel));
}

describe('shipped MIDI maps: LEDs only where the hardware has them', async () => {
  const { maps } = await loadMidiMapFolder(MAPS);

  it('there is a table for every shipped map', () => {
    expect(maps.map((m) => m.map.model).sort()).toEqual(Object.keys(TABLES).sort());
  });

  for (const { map } of maps) {
    it(`${map.model}: every LED is on a control that has one, lit as its maker documents`, () => {
      const table = TABLES[map.model];
      if (table === undefined) throw new Error(`no LED table for ${map.model}`);
      expect(map.ledSource, 'the map names the source of its LED numbers').toBe(table.source);
      const wrong: string[] = [];
      for (const control of map.controls) {
        if (control.led === undefined || control.type === 'pitchbend') continue;
        const address: Address = `${control.type}/${control.channel}/${control.number ?? -1}`;
        const expected = table.leds.get(address);
        if (expected === undefined) {
          wrong.push(`${control.id} (${address}) has no LED on this model`);
          continue;
        }
        const lit = `${control.led.kind}/${control.led.number ?? control.number ?? -1}`;
        if (lit !== expected) wrong.push(`${control.id}: its LED is lit by ${expected}, not ${lit}`);
        const channels = channelsOf(control);
        if (table.ledChannel !== 'mode' && channels.some((c) => c !== table.ledChannel)) wrong.push(`${control.id}: LED on channel ${channels.join(', ')}, not ${table.ledChannel}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
