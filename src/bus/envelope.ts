// Every message on the bus travels in an envelope that says who sent it and when (the sender's clock),
// signed by the sender with its own Ed25519 key: `{"from":…,"at":…,"body":…,"sig":"…"}`. The signature
// covers the topic and the envelope's bytes as sent, so a signed message cannot be altered, said to be
// from someone else, or replayed on another topic. It is made over
//
//   UTF-8(topic) + "\n" + the payload without its last member (`,"sig":"…"`) and with its closing brace
//
// so a checker needs no canonical JSON: any tool that can sign bytes can write a message, provided it
// puts "sig" last. The payload's size is checked before anything parses it.
import { sign, verify, type KeyObject } from 'node:crypto';
import * as z from 'zod';
import { BusId } from './topics.js';

const SIG_MEMBER = Buffer.from(',"sig":"');
const SIG_END = Buffer.from('"}');
const LINE_FEED = Buffer.from('\n');
const CLOSING_BRACE = Buffer.from('}');

/** The envelope around a message body, for the JSON Schemas (both ends check the body with its own schema). */
export const envelopeOf = <S extends z.ZodType>(body: S) =>
  z.strictObject({
    /** The sender's bus id (a poller or a panel of the facility file). */
    from: BusId,
    /** When the sender sent it, ms since the epoch on its clock. */
    at: z.number().int().nonnegative(),
    body,
    /** Ed25519 signature (base64) by the sender's key; absent only on a bus run with --mqtt-insecure. */
    sig: z.string().max(100).optional(),
  });

const Envelope = envelopeOf(z.unknown());

export interface Opened {
  from: string;
  at: number;
  body: unknown;
}

export type OpenResult = { ok: true; message: Opened } | { ok: false; error: string };

/** Whose keys the signatures are checked with; null: an insecure bus, where nothing is checked. */
export interface Keyring {
  publicKeyOf(id: string): KeyObject | null;
}

/** The payload of a message from `from`, signed with its private key (unsigned without one). */
export function sealEnvelope(topic: string, from: string, at: number, body: unknown, privateKey: KeyObject | null): Buffer {
  const unsigned = Buffer.from(`{"from":${JSON.stringify(from)},"at":${at},"body":${JSON.stringify(body)}}`);
  if (privateKey === null) return unsigned;
  const sig = sign(null, signedBytes(topic, unsigned, unsigned.length - 1), privateKey).toString('base64');
  return Buffer.concat([unsigned.subarray(0, unsigned.length - 1), SIG_MEMBER, Buffer.from(sig), SIG_END]);
}

/**
 * The sender, time and body of a message, once its size, its form and (on a secure bus) its signature
 * by the key the keyring has for its sender are checked; or what is wrong with it.
 */
export function openEnvelope(topic: string, payload: Buffer, maxBytes: number, keyring: Keyring | null): OpenResult {
  if (payload.length > maxBytes) return { ok: false, error: `${topic}: a message of ${payload.length} bytes (at most ${maxBytes} here); not read` };
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, error: `${topic}: not JSON` };
  }
  const envelope = Envelope.safeParse(json);
  if (!envelope.success) return { ok: false, error: `${topic}: not a recdeck bus envelope ({ from, at, body, sig }): ${envelope.error.issues[0]?.message ?? 'invalid'}` };
  const { from, at, body, sig } = envelope.data;
  if (keyring === null) return { ok: true, message: { from, at, body } };
  if (sig === undefined) return { ok: false, error: `${topic}: unsigned (said to be from "${from}")` };
  const key = keyring.publicKeyOf(from);
  if (key === null) return { ok: false, error: `${topic}: from "${from}", whom the facility file does not list` };
  // The signature is the last member: whatever comes before it is what was signed.
  const sigStart = payload.lastIndexOf(SIG_MEMBER);
  const tail = payload.subarray(payload.length - SIG_END.length);
  const signature = sigStart === -1 ? '' : payload.subarray(sigStart + SIG_MEMBER.length, payload.length - SIG_END.length).toString('latin1');
  if (sigStart === -1 || !tail.equals(SIG_END) || signature !== sig) return { ok: false, error: `${topic}: "sig" is not the envelope's last member` };
  if (!verify(null, signedBytes(topic, payload, sigStart), key, Buffer.from(sig, 'base64'))) return { ok: false, error: `${topic}: the signature is not "${from}"'s` };
  return { ok: true, message: { from, at, body } };
}

/** The topic, a line feed, the payload's bytes before the signature member, and the closing brace. */
function signedBytes(topic: string, payload: Buffer, end: number): Buffer {
  return Buffer.concat([Buffer.from(topic), LINE_FEED, payload.subarray(0, end), CLOSING_BRACE]);
}
