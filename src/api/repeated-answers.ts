// The last answer of each read, kept so that an answer the same to the byte as the one before is not
// masked, parsed and checked again: its value is the one decoded then. A bridge reads the same three
// paths a dozen times a second and most answers repeat (sync and dialog nearly always, the channel list
// until a clock or a counter moves); parsing and checking them again was a sixth of its polling's CPU.
//
// The value is shared by every answer it stands for. Nothing edits a decoded answer (state is replaced,
// never changed in place), so sharing it is safe, and its unchanged identity tells a reader that nothing
// changed.

/** Answers longer than this are not kept: previews (tens of kB, a new one every second) never repeat. */
const MAX_CHARS = 16 * 1024;
/** Paths kept: a bridge reads a few dozen (each channel's and source's own); a CLI session fewer. */
const MAX_PATHS = 128;

export class RepeatedAnswers {
  private readonly last = new Map<string, { text: string; value: unknown }>();

  /** The value decoded from the last answer of `path`, when this answer is that same text. */
  repeat(path: string, text: string): { value: unknown } | undefined {
    const last = this.last.get(path);
    return last !== undefined && last.text === text ? last : undefined;
  }

  /** Keeps a well-formed answer's text and value (the oldest path goes when too many are kept). */
  keep(path: string, text: string, value: unknown): void {
    this.last.delete(path);
    if (text.length > MAX_CHARS) return;
    this.last.set(path, { text, value });
    if (this.last.size > MAX_PATHS) this.last.delete(this.last.keys().next().value as string);
  }
}
