// The Satellite protocol's lines, both ways, without a socket: how a client's line is split (quotes,
// escapes, flags), what each message's schema refuses and with which words, and how our lines are
// written so that a client's parser reads back exactly what was meant.
import { describe, expect, it } from 'vitest';
import { AddDevice, KeyPress, KeyRotate, MAX_BITMAP_SIDE, MAX_CONTROLS, describeIssues, errorLine, formatLine, parseLine, parseParams } from '../../../src/surfaces/satellite/protocol.js';

/** The problem a schema finds in a line's parameters, in the words of the ERROR answer. */
function refusal(schema: typeof AddDevice | typeof KeyPress | typeof KeyRotate, body: string): string {
  const parsed = schema.safeParse(parseParams(body));
  if (parsed.success) throw new Error(`accepted: ${body}`);
  return describeIssues(parsed.error);
}
const manifest = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('reading a client line', () => {
  it('splits the command from its parameters: quoted values keep their spaces, a backslash takes the next character, a key alone is a flag', () => {
    expect(parseLine('add-device DEVICEID=x PRODUCT_NAME="Satellite StreamDeck: 15"  KEYS_TOTAL=15 BITMAPS')).toEqual({
      command: 'ADD-DEVICE',
      params: { DEVICEID: 'x', PRODUCT_NAME: 'Satellite StreamDeck: 15', KEYS_TOTAL: '15', BITMAPS: true },
    });
    expect({ ...parseParams('A="say \\"hi\\"" B=back\\\\slash C=a\\ b') }).toEqual({ A: 'say "hi"', B: 'back\\slash', C: 'a b' });
    // A value may hold "=" (base64 padding): only the first one splits.
    expect({ ...parseParams('LAYOUT_MANIFEST=e30= X==') }).toEqual({ LAYOUT_MANIFEST: 'e30=', X: '=' });
    // A key given twice keeps its last value; a fragment with no key is dropped; __proto__ is a key like any other.
    expect(Object.entries(parseParams('A=1 A=2 =3 __proto__=4'))).toEqual([
      ['A', '2'],
      ['__proto__', '4'],
    ]);
    expect(Object.getPrototypeOf(parseParams(''))).toBeNull();
    expect(parseLine('PING')).toEqual({ command: 'PING', params: {} });
  });

  it('reads a Companion Satellite ADD-DEVICE as it sends it (every value quoted, parameters recdeck does not use let through)', () => {
    const line =
      'ADD-DEVICE DEVICEID="streamdeck:CL12345" LAYOUT_MANIFEST="' +
      manifest({ stylePresets: { default: {}, empty: {}, btn_72x72: { bitmap: { w: 72, h: 72 } } }, controls: { '0/0': { row: 0, column: 0, stylePreset: 'btn_72x72' } } }) +
      '" PRODUCT_NAME="Elgato Stream Deck MK.2" VARIABLES="W10=" BRIGHTNESS=1 PINCODE_LOCK="FULL" SERIAL="CL12345" SERIAL_IS_UNIQUE=1';
    const parsed = AddDevice.safeParse(parseLine(line).params);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toMatchObject({ DEVICEID: 'streamdeck:CL12345', PRODUCT_NAME: 'Elgato Stream Deck MK.2', BRIGHTNESS: true });
  });
});

describe('what ADD-DEVICE refuses, and the words of its ERROR', () => {
  it.each([
    ['PRODUCT_NAME=x KEYS_TOTAL=15', 'missing DEVICEID'],
    ['DEVICEID=x KEYS_TOTAL=15', 'missing PRODUCT_NAME'],
    ['DEVICEID=x PRODUCT_NAME=x', 'give KEYS_TOTAL (with KEYS_PER_ROW) or a LAYOUT_MANIFEST'],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=abc', 'KEYS_TOTAL is not a whole number'],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=0', `KEYS_TOTAL must be 1 to ${MAX_CONTROLS}`],
    [`DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=${MAX_CONTROLS + 1}`, `KEYS_TOTAL must be 1 to ${MAX_CONTROLS}`],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=15 KEYS_PER_ROW=1e3', 'KEYS_PER_ROW is not a whole number'],
    [`DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=15 BITMAPS=${MAX_BITMAP_SIDE + 1}`, `BITMAPS must be at most ${MAX_BITMAP_SIDE}`],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=15 BITMAPS=big', 'BITMAPS "big" is not a size in pixels'],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=15 COLORS=cmyk', 'COLORS "cmyk" is not hex, rgb or a yes/no'],
    ['DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=15 TEXT=maybe', 'TEXT "maybe" is not a yes/no (1, 0, true, false)'],
    ['DEVICEID="a b" PRODUCT_NAME=x KEYS_TOTAL=15', 'DEVICEID has spaces'],
    [`DEVICEID=${'d'.repeat(129)} PRODUCT_NAME=x KEYS_TOTAL=15`, 'DEVICEID is longer than 128 characters'],
    ['DEVICEID=x PRODUCT_NAME="say \\"hi\\"" KEYS_TOTAL=15', 'PRODUCT_NAME has control characters, quotes or backslashes'],
    ['DEVICEID=x PRODUCT_NAME= KEYS_TOTAL=15', 'PRODUCT_NAME is empty'],
    ['DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=bm90IGpzb24=', 'LAYOUT_MANIFEST is not base64 of JSON'],
    [`DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=${manifest({ stylePresets: { default: {} }, controls: {} })}`, 'LAYOUT_MANIFEST: controls: no controls'],
    [`DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=${manifest({ stylePresets: { default: {} }, controls: { a: { row: 0, column: 0 }, b: { row: 0, column: 0 } } })}`, 'LAYOUT_MANIFEST: manifest: control b: another control is at row 0, column 0'],
    [`DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=${manifest({ stylePresets: { default: {} }, controls: { a: { row: 0, column: 0, stylePreset: 'lcd' } } })}`, 'LAYOUT_MANIFEST: manifest: control a: no style preset "lcd"'],
    [`DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=${manifest({ stylePresets: { default: { bitmap: { w: 0, h: 72 } } }, controls: { a: { row: 0, column: 0 } } })}`, 'LAYOUT_MANIFEST: stylePresets.default.bitmap.w:'],
  ])('%s: %s', (body, words) => {
    expect(refusal(AddDevice, body)).toContain(words);
  });

  it(`refuses a manifest of more than ${MAX_CONTROLS} controls`, () => {
    const controls = Object.fromEntries(Array.from({ length: MAX_CONTROLS + 1 }, (_, i) => [`c${i}`, { row: Math.floor(i / 16), column: i % 16 }]));
    expect(refusal(AddDevice, `DEVICEID=x PRODUCT_NAME=x LAYOUT_MANIFEST=${manifest({ stylePresets: { default: {} }, controls })}`)).toContain(`more than ${MAX_CONTROLS} controls`);
  });

  it('reads BITMAPS as Companion does: a size, a yes (72), a size under 5 (72), a no (none)', () => {
    const bitmaps = (value: string) => AddDevice.parse(parseParams(`DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=1 BITMAPS=${value}`)).BITMAPS;
    expect([bitmaps('96'), bitmaps('true'), bitmaps('1'), bitmaps('0'), bitmaps('no'), bitmaps('""')]).toEqual([96, 72, 72, null, null, null]);
    expect(AddDevice.parse(parseParams('DEVICEID=x PRODUCT_NAME=x KEYS_TOTAL=1 BITMAPS')).BITMAPS).toBe(72);
  });
});

describe('what KEY-PRESS and KEY-ROTATE refuse', () => {
  it.each([
    ['KEY-PRESS', 'KEY=0 PRESSED=1', 'missing DEVICEID'],
    ['KEY-PRESS', 'DEVICEID=x PRESSED=1', 'give KEY or CONTROLID'],
    ['KEY-PRESS', 'DEVICEID=x KEY=0', 'missing PRESSED'],
    ['KEY-PRESS', 'DEVICEID=x KEY=-1 PRESSED=1', 'KEY is not an index or row/column'],
    ['KEY-PRESS', 'DEVICEID=x KEY=1/2/3 PRESSED=1', 'KEY is not an index or row/column'],
    ['KEY-PRESS', 'DEVICEID=x KEY=0 PRESSED=down', 'PRESSED "down" is not a yes/no'],
    ['KEY-ROTATE', 'DEVICEID=x KEY=0', 'missing DIRECTION'],
    ['KEY-ROTATE', 'DEVICEID=x KEY=0 DIRECTION=left', 'DIRECTION is not a signed number of steps'],
    ['KEY-ROTATE', 'DEVICEID=x KEY=0 DIRECTION=1000', 'DIRECTION is not a signed number of steps'],
  ] as const)('%s %s: %s', (command, body, words) => {
    expect(refusal(command === 'KEY-PRESS' ? KeyPress : KeyRotate, body)).toContain(words);
  });

  it('DIRECTION is signed steps (API 1.14), 0 one step back as it always was; a client sending both CONTROLID and KEY (Companion Satellite does) is read', () => {
    const direction = (value: string) => KeyRotate.parse(parseParams(`DEVICEID=x CONTROLID="3/0" KEY="3/0" DIRECTION=${value}`)).DIRECTION;
    expect([direction('1'), direction('0'), direction('-3'), direction('+2')]).toEqual([1, -1, -3, 2]);
    expect(KeyPress.parse(parseParams('DEVICEID="x" CONTROLID="0/1" KEY="0/1" PRESSED=0'))).toMatchObject({ CONTROLID: '0/1', KEY: '0/1', PRESSED: false });
  });
});

describe('writing our lines', () => {
  it('quotes text (escaping quotes and backslashes, a newline made a space), leaves numbers bare and writes yes/no as 1/0', () => {
    expect(formatLine('KEY-STATE', null, 'x', { KEY: 0, TYPE: 'BUTTON', PRESSED: false, TEXT: 'a "b" \\ c\nd' })).toBe('KEY-STATE DEVICEID="x" KEY=0 TYPE="BUTTON" PRESSED=0 TEXT="a \\"b\\" \\\\ c d"\n');
    expect(formatLine('ADD-DEVICE', 'OK', 'x')).toBe('ADD-DEVICE OK DEVICEID="x"\n');
    expect(formatLine('CAPS', null, null, { SUBSCRIPTIONS: false, NONSQUARE: true })).toBe('CAPS SUBSCRIPTIONS=0 NONSQUARE=1\n');
  });

  it('what we write, a client reads back as it was (the same split as Companion Satellite)', () => {
    const args = { TEXT: 'He said "stop" \\ now', COLOR: '#ff0000', VALUE: 70 };
    const { command, params } = parseLine(formatLine('KEY-STATE', null, 'cam "2"', args).trimEnd());
    expect({ command, params: { ...params } }).toEqual({ command: 'KEY-STATE', params: { DEVICEID: 'cam "2"', TEXT: 'He said "stop" \\ now', COLOR: '#ff0000', VALUE: '70' } });
  });

  it('an ERROR names the command and the device when they are known, and is a bare ERROR for a line that is no command', () => {
    expect(errorLine('KEY-PRESS', 'x', 'device x is not added on this connection')).toBe('KEY-PRESS ERROR DEVICEID="x" MESSAGE="device x is not added on this connection"\n');
    expect(errorLine(null, null, 'unknown command FROB')).toBe('ERROR MESSAGE="unknown command FROB"\n');
  });
});
