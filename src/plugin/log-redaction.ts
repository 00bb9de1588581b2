// What the Stream Deck SDK writes to the plugin's log file, kept free of recorder tokens. The SDK logs
// some of the app's messages as their raw text: a message it cannot parse ("Failed to parse message: …",
// at error level, with the parser's error quoting the text again), one without an event ("Received
// unknown message: …") and, at trace level, every message both ways (global settings carry the tokens).
// Its logger has no filter of its own, but every entry of every scope goes through one method, Logger's
// write: the plugin wraps that method once, before it connects, so an entry is cleaned whatever scope
// wrote it. The raw text of a message the SDK could not read is dropped whole (only its length is kept):
// a broken message is exactly where a token cannot be found by its field name.
import type streamDeck from '@elgato/streamdeck';

type Logger = typeof streamDeck.logger;

/** An entry as the SDK's logger hands it to its targets. */
export interface SdkLogEntry {
  level: string;
  data: unknown[];
  scope?: string;
}

/** The SDK's entries whose text after the prefix is an app message as it came. */
const RAW_MESSAGE = /^(Failed to parse message|Received unknown message): /s;

const MASK = '•••';

/** Marks the logger's class once wrapped. */
const REDACTED = Symbol('recdeck: tokens redacted');

/** Any text with the tokens it may hold masked: a "token" field's value, a perm:… token. */
export function maskTokens(text: string): string {
  return text
    .replace(/("token"\s*:\s*")((?:[^"\\]|\\.)*)("?)/g, (_whole, open: string, _value: string, close: string) => `${open}${MASK}${close}`)
    .replace(/\bperm:[^\s"',}\]]+/g, `perm:${MASK}`);
}

/** An entry fit for the log: raw app messages reduced to their length, every other text masked. */
export function redactedEntry(entry: SdkLogEntry): SdkLogEntry {
  const first = entry.data[0];
  if (typeof first === 'string') {
    const raw = RAW_MESSAGE.exec(first);
    if (raw !== null) {
      const length = first.length - raw[0].length;
      // The parser's error quotes the text too: it goes with it.
      return { ...entry, data: [`${raw[1]} (${length} characters; the text is not logged: an app message may carry a recorder's token)`] };
    }
  }
  return { ...entry, data: entry.data.map(redactedDatum) };
}

function redactedDatum(datum: unknown): unknown {
  if (typeof datum === 'string') return maskTokens(datum);
  if (datum instanceof Error) {
    const copy = new Error(maskTokens(datum.message));
    copy.name = datum.name;
    copy.stack = maskTokens(datum.stack ?? '');
    return copy;
  }
  // Objects are written by the SDK as their JSON or inspection: masked as that text.
  if (typeof datum === 'object' && datum !== null) {
    try {
      return maskTokens(JSON.stringify(datum));
    } catch {
      return '[an object that could not be written]';
    }
  }
  return datum;
}

/**
 * Wraps the SDK logger's write (on its class, so every scope's logger, made before or after, is covered)
 * so that no entry reaches a log target unredacted. Idempotent.
 */
export function redactSdkLogging(logger: Logger): void {
  const prototype = Object.getPrototypeOf(logger) as { write: (this: Logger, entry: SdkLogEntry) => Logger; [REDACTED]?: true };
  if (prototype[REDACTED] === true) return;
  const write = prototype.write;
  prototype.write = function redactedWrite(this: Logger, entry: SdkLogEntry): Logger {
    return write.call(this, redactedEntry(entry));
  };
  prototype[REDACTED] = true;
}
