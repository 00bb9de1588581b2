// The two names the bus's topics are made of, in a file of their own: `recdeck run` checks them when it
// reads its flags (--mqtt-id, --recorder NAME@mqtt) without loading the bus's messages (topics.ts and
// the rest of bus/ are imported only when --mqtt is given).
import * as z from 'zod';

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A recorder's name as one topic level: no wildcards, no separators. */
export const RecorderName = z.string().regex(NAME, { error: 'a recorder on the bus is named with 1-64 letters, digits, "_", "." or "-"' });

/** A poller's or panel's id: one topic level (its command and reply topics end with it) and the MQTT user of its broker login. */
export const BusId = z.string().regex(NAME, { error: 'a bus id is 1-64 letters, digits, "_", "." or "-"' });
