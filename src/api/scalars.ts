// Codecs for the odd scalar shapes of the Recording Control Service wire. Each one decodes what the
// service sends into the value a program wants, and encodes it back (the simulator speaks through the
// same codecs), so the wire format is written down exactly once.
import * as z from 'zod';

/** The text the service uses in place of a source name when a channel has none. */
export const NOT_SPECIFIED = 'Not Specified';

const DURATION = /^(\d{2,}):([0-5]\d):([0-5]\d)$/;

/** "hh:mm:ss" ⇄ whole seconds. Hours may exceed 99 on a long take. */
export const durationText = z.codec(
  z.string().regex(DURATION, { error: 'expected a duration as hh:mm:ss' }),
  z.number().int().nonnegative(),
  {
    decode: (text) => {
      const [, h, m, s] = DURATION.exec(text) ?? [];
      return Number(h) * 3600 + Number(m) * 60 + Number(s);
    },
    encode: (seconds) => formatClock(seconds),
  },
);

/** Seconds as hh:mm:ss, the service's duration and clock format. */
export function formatClock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor(whole / 60) % 60;
  const s = whole % 60;
  return [h, m, s].map((v) => String(v).padStart(2, '0')).join(':');
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A decimal number that travels as text ("25.00"); a plain JSON number is accepted on read too. */
export function decimalText(fractionDigits: number) {
  return z.codec(
    z.union([z.string().regex(DECIMAL, { error: 'expected a decimal number as text' }), z.number()]),
    z.number(),
    {
      decode: (value) => Number(value),
      encode: (value) => value.toFixed(fractionDigits),
    },
  );
}

/** An integer that travels as text ("3"). */
export const integerText = z.codec(
  z.union([z.string().regex(/^\d+$/, { error: 'expected a whole number as text' }), z.number().int()]),
  z.number().int().nonnegative(),
  {
    decode: (value) => Number(value),
    encode: (value) => String(value),
  },
);

/** A channel's source name; "Not Specified" (or nothing) means no source. */
export const sourceNameText = z.codec(z.string().nullable(), z.string().nullable(), {
  decode: (name) => (name === null || name === '' || name === NOT_SPECIFIED ? null : name),
  encode: (name) => name ?? NOT_SPECIFIED,
});

/** Audio gain in dB, sent as text in write bodies. Range chosen for the simulator: -60 to +20 dB. */
export const GAIN_DB = { min: -60, max: 20 } as const;
export const gainWriteText = z.codec(
  z.string().regex(DECIMAL, { error: 'expected a gain in dB as decimal text, e.g. "-6.0"' }),
  z
    .number()
    .min(GAIN_DB.min, { error: `expected a gain of at least ${GAIN_DB.min} dB` })
    .max(GAIN_DB.max, { error: `expected a gain of at most ${GAIN_DB.max} dB` }),
  {
    decode: (text) => Number(text),
    encode: (db) => db.toFixed(1),
  },
);

/**
 * Audio gain as read back. The interface gives it as a number in a source read (text only in write
 * bodies): the simulator sends a number, and the client also accepts text, as some builds send it.
 */
export const gainRead = z.codec(
  z.union([z.number(), z.string().regex(DECIMAL, { error: 'expected a gain in dB as a number' })]),
  z.number(),
  {
    decode: (value) => Number(value),
    encode: (db) => Math.round(db * 10) / 10,
  },
);

/** "45%" ⇄ 45. */
export const percentText = z.codec(
  z.string().regex(/^\d+(\.\d+)?\s*%$/, { error: 'expected a percentage such as "45%"' }),
  z.number().nonnegative(),
  {
    decode: (text) => Number.parseFloat(text),
    encode: (value) => `${Math.round(value)}%`,
  },
);

// Plain numbers, not a Buffer made at load: the wire's schemas are bundled into browser pages too (the
// Stream Deck plugin's property inspector), where there is no Buffer.
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

/** Which of the first 128 character codes Base64 text is made of (its padding aside). */
const BASE64_ALPHABET = new Uint8Array(128);
for (const character of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64_ALPHABET[character.charCodeAt(0)] = 1;

/**
 * Base64 text: what /^[A-Za-z0-9+/]*={0,2}$/ accepts. A preview is about 28,000 characters and comes 16
 * times a second with a page of previews; V8 runs that expression at about 7 ns a character (0.19 ms a
 * preview, the larger part of reading one, on the thread that also sends key presses), this loop in a
 * third of that.
 */
export function isBase64Text(text: string): boolean {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--; // '='
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || BASE64_ALPHABET[code] === 0) return false;
  }
  return true;
}

/** The channel preview: a JSON string of Base64 ⇄ the PNG bytes. */
export const base64Png = z.codec(
  z.string().refine(isBase64Text, { error: 'expected Base64 text' }),
  z.instanceof(Uint8Array).refine((bytes) => PNG_SIGNATURE.every((byte, i) => bytes[i] === byte), {
    error: 'expected a PNG image',
  }),
  {
    decode: (text) => Buffer.from(text, 'base64'),
    encode: (bytes) => Buffer.from(bytes).toString('base64'),
  },
);

/** Schedule time as written: "hh:mm" (24 h). */
export const clockMinutesText = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'expected a time as hh:mm (00:00 to 23:59)' });

/** Schedule time as read back: "hh:mm:ss" (tolerating "hh:mm"). */
export const clockSecondsText = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, { error: 'expected a time as hh:mm:ss' });

/** A non-negative integer position (channel, source, destination, preset). */
export const indexNumber = z.number().int().nonnegative();
