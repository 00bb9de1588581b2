import * as z from 'zod';

/** The conversion lists as the interface gives them; the simulator serves exactly these. */
export const CONVERSION_LISTS = {
  VideoFormats: ['Original', 'PAL', 'NTSC', 'HD720', 'FullHD', 'UHD'],
  FrameRates: ['Original', '23.98', '24', '25', '29.97', '30', '50', '59.94', '60'],
  Interlaces: ['Default', 'Field1First', 'Field2First', 'Progressive', 'Inverse', 'OneField', 'DeinterlaceF1', 'DeinterlaceF2'],
  AudioSampleRates: ['Original', '48000', '44100'],
  AudioChannels: ['Original', '1', '2', '4', '8', '16'],
  AudioBits: ['Original', '16', '32'],
} as const;
type ListName = keyof typeof CONVERSION_LISTS;

const ListsObject = z.record(z.string(), z.array(z.string()));
export type ConversionLists = z.output<typeof ListsObject>;

/** ["VideoFormats", [...], "FrameRates", [...], ...] ⇄ { VideoFormats: [...], FrameRates: [...] }. */
export const ConversionListsWire = z.codec(
  z.array(z.union([z.string(), z.array(z.string())])).refine((items) => isAlternating(items), {
    error: 'expected a flat array alternating a list name and an array of strings',
  }),
  ListsObject,
  {
    decode: (items) => {
      const lists: ConversionLists = {};
      for (let i = 0; i < items.length; i += 2) lists[items[i] as string] = items[i + 1] as string[];
      return lists;
    },
    encode: (lists) => Object.entries(lists).flat(),
  },
);

function isAlternating(items: readonly unknown[]): boolean {
  return items.length % 2 === 0 && items.every((item, i) => (i % 2 === 0 ? typeof item === 'string' : Array.isArray(item)));
}

// z.literal keeps the list's order in messages (z.enum would put numeric-looking values first).
const oneOf = (list: ListName) => z.literal(CONVERSION_LISTS[list]);

/** Conversion settings as written: a partial update; each value from its list. */
export const ConversionWrite = z.strictObject({
  IsEnabled: z.boolean().optional(),
  VideoFormat: oneOf('VideoFormats').optional(),
  FrameRate: oneOf('FrameRates').optional(),
  Interlace: oneOf('Interlaces').optional(),
  AudioSampleRate: oneOf('AudioSampleRates').optional(),
  AudioChannel: oneOf('AudioChannels').optional(),
  AudioBit: oneOf('AudioBits').optional(),
});
export type ConversionWrite = z.output<typeof ConversionWrite>;

/** Conversion settings as read: strings kept as they come, so a newer service's values still load. */
export const ConversionConfig = z.looseObject({
  IsEnabled: z.boolean(),
  VideoFormat: z.string(),
  FrameRate: z.string(),
  Interlace: z.string(),
  AudioSampleRate: z.string(),
  AudioChannel: z.string(),
  AudioBit: z.string(),
});
export type ConversionConfig = z.output<typeof ConversionConfig>;
