// What travels on the state bus, as zod schemas: the single source of the messages both ends check
// and of the JSON Schemas published for other tools (Node-RED, Companion, dashboards). Every value is
// in the recorder's own wire form (what its REST interface answers), so a subscriber needs no recdeck.
import * as z from 'zod';
import { Dialog, ResourcesWire, Schedule, SyncState } from '../api/app.js';
import { ChannelList } from '../api/channel.js';
import { ConversionConfig } from '../api/conversion.js';
import { operations } from '../api/operations.js';
import { SourceList } from '../api/source.js';
import type { StatePart } from '../engine/recorder-state.js';

/** A recorder's name as one topic level: no wildcards, no separators. */
export const RecorderName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'a recorder on the bus is named with 1-64 letters, digits, "_", "." or "-"' });

export const topicsOf = (recorder: string) => {
  const base = `recdeck/${recorder}`;
  return {
    part: (part: StatePart) => `${base}/${part}`,
    health: `${base}/health`,
    lease: `${base}/lease`,
    cmd: `${base}/cmd`,
    refresh: `${base}/refresh`,
    replies: (client: string) => `${base}/reply/${client}`,
    all: `${base}/#`,
  };
};

/** Each state part's value, as the recorder's interface answers it. */
export const PART_VALUES = {
  channels: ChannelList,
  sync: SyncState,
  dialog: Dialog,
  sources: SourceList,
  resources: ResourcesWire,
  schedule: Schedule,
  conversion: ConversionConfig,
} as const satisfies Record<StatePart, z.ZodType>;

const when = z.number().int().nonnegative();

/** One part (retained): its last good value, when the answer that brought it came (poller's clock, ms since the epoch), and the read's number. */
export const partMessage = <S extends z.ZodType>(value: S) =>
  z.strictObject({
    value: value.nullable(),
    readAt: when.nullable(),
    readNumber: z.number().int().nonnegative(),
  });

/** The poller's word on the recorder (retained), or its last will: it is gone. */
export const HealthMessage = z.discriminatedUnion('online', [
  z.strictObject({
    online: z.literal(true),
    /** The poller publishing (the lease holder). */
    poller: z.string().min(1),
    pollMs: z.number().positive(),
    slowMs: z.number().positive(),
    /** When the poller published this (its clock): the data's age is now minus each part's readAt. */
    at: when,
    lastGoodAt: when.nullable(),
    failures: z.number().int().nonnegative(),
    lastError: z.string().nullable(),
    unreachable: z.boolean(),
  }),
  z.strictObject({ online: z.literal(false), poller: z.string().min(1) }),
]);
export type HealthMessage = z.output<typeof HealthMessage>;

/** Which poller polls (retained). */
export const LeaseMessage = z.strictObject({ holder: z.string().min(1), since: when });
export type LeaseMessage = z.output<typeof LeaseMessage>;

/** Operations a panel may ask the poller to call: every operation of the client, by name. */
const Method = z.enum(Object.keys(operations) as [keyof typeof operations, ...Array<keyof typeof operations>]);

/** A command (QoS 1): run at most once per id; the answer goes to replyTo. */
export const CommandMessage = z.strictObject({
  id: z.string().min(8).max(100),
  call: z.strictObject({
    method: Method,
    args: z.array(z.union([z.number(), z.string(), z.record(z.string(), z.unknown())])).max(3),
  }),
  replyTo: z.string().min(1).max(300),
});
export type CommandMessage = z.output<typeof CommandMessage>;

const ReadNumbers = z.strictObject(Object.fromEntries(Object.keys(PART_VALUES).map((part) => [part, z.number().int().nonnegative()])) as Record<StatePart, z.ZodNumber>);

export const ReplyMessage = z.discriminatedUnion('ok', [
  z.strictObject({
    id: z.string(),
    ok: z.literal(true),
    /** The answer in the recorder's wire form (absent for writes). */
    value: z.unknown().optional(),
    /** The numbers the poller's next reads will have, taken as the answer came: reads at least these show the command's effect. */
    readsAfter: ReadNumbers,
  }),
  z.strictObject({
    id: z.string(),
    ok: z.literal(false),
    error: z.string(),
    /** The recorder's own message, when it refused. */
    serviceMessage: z.string().optional(),
  }),
]);
export type ReplyMessage = z.output<typeof ReplyMessage>;

/** A panel asks for the state to be read again now (after a command). */
export const RefreshMessage = z.strictObject({ slow: z.boolean() });

/** Parses a message's payload as JSON and checks it, naming what is wrong. */
export function parseMessage<S extends z.ZodType>(schema: S, topic: string, payload: Buffer): { ok: true; value: z.output<S> } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, error: `${topic}: not JSON` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: `${topic}: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`).join('; ')}` };
}

/** Every message on the bus with the file its JSON Schema is published in (under profiles/bus/) and what it is. */
export function busMessageSchemas(): Array<{ file: string; topic: string; description: string; schema: z.ZodType }> {
  const parts = (Object.keys(PART_VALUES) as StatePart[]).map((part) => ({
    file: `${part}.schema.json`,
    topic: `recdeck/<recorder>/${part}`,
    description: `Retained: the recorder's ${part} as its interface answers it, when the poller's read of it was answered (ms since the epoch, the poller's clock) and the read's number.`,
    schema: partMessage(PART_VALUES[part]),
  }));
  return [
    ...parts,
    { file: 'health.schema.json', topic: 'recdeck/<recorder>/health', description: "Retained: the polling poller's word on the recorder (online: true), or a poller's last will (online: false).", schema: HealthMessage },
    { file: 'lease.schema.json', topic: 'recdeck/<recorder>/lease', description: 'Retained: which poller polls the recorder; the last one published wins.', schema: LeaseMessage },
    { file: 'cmd.schema.json', topic: 'recdeck/<recorder>/cmd', description: 'QoS 1: a call on the recorder (a recdeck client method and its arguments), run at most once per id; the reply goes to replyTo.', schema: CommandMessage },
    { file: 'reply.schema.json', topic: "a command's replyTo", description: "QoS 1: a command's answer: ok with the recorder's answer and the read numbers that show its effect, or not ok with why.", schema: ReplyMessage },
    { file: 'refresh.schema.json', topic: 'recdeck/<recorder>/refresh', description: 'Asks the poller to read the state again now (after a command; slow: the slow group too).', schema: RefreshMessage },
  ];
}
