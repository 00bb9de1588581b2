// Device list entries. Audio entries are documented (Type, Index, Name). The video list's shape is not;
// we choose the same entry shape wrapped as { Video: [...] } to mirror { Audio: [...] }, and the client
// also accepts a bare array, since "a list" may mean exactly that on a real service.
import * as z from 'zod';

export const DeviceEntry = z.looseObject({
  Type: z.number().int(),
  Index: z.number().int(),
  Name: z.string(),
});
export type DeviceEntry = z.output<typeof DeviceEntry>;

/** A device as written in a source body: taken from a device list and sent whole. */
export const DeviceRef = z.strictObject({
  Type: z.number().int(),
  Index: z.number().int(),
  Name: z.string().min(1),
});
export type DeviceRef = z.output<typeof DeviceRef>;

export const AudioDevices = z.looseObject({ Audio: z.array(DeviceEntry) });
export type AudioDevices = z.output<typeof AudioDevices>;

export const VideoDevices = z.codec(
  z.union([z.array(DeviceEntry), z.looseObject({ Video: z.array(DeviceEntry) })]),
  z.array(DeviceEntry),
  {
    decode: (wire) => (Array.isArray(wire) ? wire : wire.Video),
    encode: (entries) => ({ Video: entries }),
  },
);
export type VideoDevices = z.output<typeof VideoDevices>;
