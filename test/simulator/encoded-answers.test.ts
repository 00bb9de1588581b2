// The simulator's answers are checked and encoded by the operation's schema each time the value differs
// from the last one it encoded (src/simulator/encoded-answers.ts): the same value is answered with the
// same encoding, equal to a fresh z.encode; a changed value, one changed in place after it was encoded,
// and a bad answer (right after a good one) are checked again; a Buffer is never kept. Real codecs.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { base64Png, durationText, integerText, sourceNameText } from '../../src/api/scalars.js';
import { EncodedAnswers } from '../../src/simulator/encoded-answers.js';

const Channel = z.object({ Index: integerText, Source: sourceNameText, Duration: durationText, Note: z.string().optional() });
const Channels = z.array(Channel);

const channels = () => [
  { Index: 0, Source: 'Camera 1', Duration: 75 },
  { Index: 1, Source: null, Duration: 0 },
];

describe('answers encoded once per distinct value', () => {
  it('the same value is answered with the same encoding, equal to a fresh one; a changed value is encoded anew', () => {
    const answers = new EncodedAnswers();
    const first = answers.encode('listChannels', Channels, channels());
    expect(first).toEqual([
      { Index: '0', Source: 'Camera 1', Duration: '00:01:15' },
      { Index: '1', Source: 'Not Specified', Duration: '00:00:00' },
    ]);
    expect(answers.encode('listChannels', Channels, channels())).toEqual(z.encode(Channels, channels()));
    expect(answers.hits).toBe(1);
    const later = channels();
    (later[0] as { Duration: number }).Duration = 76;
    expect(answers.encode('listChannels', Channels, later)).toEqual(z.encode(Channels, later));
    expect(JSON.stringify(answers.encode('listChannels', Channels, later))).toContain('00:01:16');
    expect(answers.hits).toBe(2);
    // Kept by operation: another operation's same value is its own.
    answers.encode('otherList', Channels, later);
    expect(answers.hits).toBe(2);
  });

  it('a value changed in place after it was encoded is encoded again (it is compared with a copy)', () => {
    const answers = new EncodedAnswers();
    const live = channels();
    answers.encode('listChannels', Channels, live);
    (live[1] as { Source: string | null }).Source = 'Camera 2';
    expect(answers.encode('listChannels', Channels, live)).toEqual(z.encode(Channels, live));
    expect(answers.hits).toBe(0);
    // A field set to undefined is not the field absent, strictly: checked again (and fits here).
    const withNote = channels().map((c) => ({ ...c, Note: undefined }));
    answers.encode('listChannels', Channels, channels());
    expect(answers.encode('listChannels', Channels, withNote)).toEqual(z.encode(Channels, withNote));
    expect(answers.hits).toBe(0);
  });

  it('a bad answer is refused each time, even right after a good one, and a good one after it is checked again', () => {
    const answers = new EncodedAnswers();
    answers.encode('listChannels', Channels, channels());
    for (const bad of [
      channels().map((c, i) => (i === 0 ? { ...c, Duration: -1 } : c)),
      channels().map((c, i) => (i === 0 ? { ...c, Duration: Number.NaN } : c)),
      channels().map((c, i) => (i === 0 ? { ...c, Index: 'zero' } : c)),
    ]) {
      expect(() => answers.encode('listChannels', Channels, bad)).toThrow(z.ZodError);
      expect(() => answers.encode('listChannels', Channels, bad)).toThrow(z.ZodError);
    }
    expect(answers.encode('listChannels', Channels, channels())).toEqual(z.encode(Channels, channels()));
    expect(answers.hits).toBe(0);
  });

  it('a value that is not plain data (a preview’s Buffer) is encoded each time, never answered from before', () => {
    const answers = new EncodedAnswers();
    const Preview = z.object({ Png: base64Png });
    const png = { Png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]) };
    const wire = z.encode(Preview, png);
    expect(answers.encode('getChannelPreview', Preview, png)).toEqual(wire);
    expect(answers.encode('getChannelPreview', Preview, png)).toEqual(wire);
    // Not a PNG: refused, as every time.
    expect(() => answers.encode('getChannelPreview', Preview, { Png: Buffer.from([1, 2, 3]) })).toThrow(z.ZodError);
    expect(answers.hits).toBe(0);
  });
});
