// One writer per device. The session's queue orders writes per control, but a Stream Deck is one USB
// device: writes for different controls must not overlap, must reach it in the order they were asked
// for, and must stop at the first failure instead of piling up against an unplugged device. So every
// write to a device goes through one promise chain, strictly one after another.

export class SerialWriter {
  private tail: Promise<void> = Promise.resolve();

  /** Runs op after everything queued before it; the result is op's, and a failure does not stop the chain. */
  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(op);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
