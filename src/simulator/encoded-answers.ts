// The last answer each operation encoded, so that a poll answered with the same state as the one
// before is not checked and encoded again. A bridge polls the channel list, sync state and dialog
// several times a second and most answers repeat until a clock or a counter moves; z.encode of the
// channel list (every field checked, every codec run) was most of the simulator's own CPU in the suite.
//
// Encoding is a function of the operation's answer schema and the value alone (the codecs in
// src/api/scalars.ts are pure), so a value deep-equal to one encoded before encodes to the same wire
// answer, and a check that passed for it passes again: nothing is skipped that could fail. The value is
// compared with a copy taken when it was encoded (a handler may return live state that changes later),
// strictly (NaN, -0, undefined fields and prototypes count). A value that is not plain data (a preview's
// Buffer) and an answer that failed its check are never kept: they are checked and encoded each time.
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { isPlainData } from '../api/plain-data.js';

export class EncodedAnswers {
  /** By operation id: at most one per operation of the table. */
  private readonly last = new Map<string, { value: unknown; encoded: unknown }>();
  /** Answers given from the last encoding, for tests. */
  hits = 0;

  /**
   * The operation's answer `value` checked and encoded by `schema` (z.encode: throws when it does not
   * fit), or the encoding of the same value before. The encoded answer is shared: it is only written out.
   */
  encode(operation: string, schema: z.ZodType, value: unknown): unknown {
    const last = this.last.get(operation);
    if (last !== undefined && isDeepStrictEqual(last.value, value)) {
      this.hits++;
      return last.encoded;
    }
    this.last.delete(operation);
    const encoded = z.encode(schema, value);
    if (isPlainData(value)) this.last.set(operation, { value: structuredClone(value), encoded });
    return encoded;
  }
}
