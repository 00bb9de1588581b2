// The parameters actions share (a channel, a recorder, "at least one field"), each described for the
// operator, and the one place "selected" becomes a channel number.
import * as z from 'zod';

export const MAX_CHANNEL = 16;

/** A channel as operators count it (1–16), or the channel currently selected on the surface. */
export const ChannelRef = z
  .union([z.number().int().min(1).max(MAX_CHANNEL), z.literal('selected')])
  .describe('Channel number 1–16 as shown on the recorder, or "selected" for the channel chosen with select-channel');
export type ChannelRef = z.output<typeof ChannelRef>;

export const recorder = z.string().min(1).optional().describe('Name of the recorder this acts on (default: the binding\'s, else the first)');

/** An action on one channel, with nothing else to say. */
export const channelAction = <A extends string>(action: A, description: string) =>
  z.strictObject({ action: z.literal(action), channel: ChannelRef, recorder }).describe(description);

/** An action on the whole recorder, with nothing else to say. */
export const plainAction = <A extends string>(action: A, description: string) => z.strictObject({ action: z.literal(action), recorder }).describe(description);

/** A "set" action names at least one of its fields: an empty one would send a request that changes nothing. */
export const someField = (fields: readonly string[]) =>
  [(value: Record<string, unknown>) => fields.some((f) => value[f] !== undefined), { error: `expected at least one of ${fields.join(', ')}` }] as const;

/** The channel a reference stands for: "selected" is the surface's selected channel (1-based). */
export function channelOf(ref: ChannelRef, selectedChannel: number): number {
  return ref === 'selected' ? selectedChannel : ref;
}

/** An action with "selected" replaced by the channel it stood for when it was pressed. */
export type Resolved<A> = A extends unknown ? { [K in keyof A]: K extends 'channel' ? Exclude<A[K], 'selected'> : A[K] } : never;

/** Resolves "selected" once, when the command is made, so what runs is what the key showed. */
export function resolveSelected<A extends { action: string; channel?: ChannelRef }>(action: A, selectedChannel: number): Resolved<A> {
  return (action.channel === undefined ? action : { ...action, channel: channelOf(action.channel, selectedChannel) }) as Resolved<A>;
}
