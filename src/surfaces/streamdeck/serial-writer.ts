// One writer per device. The session's queue orders writes per control, but a Stream Deck is one USB
// endpoint: two images in flight at once would interleave their HID reports and garble both keys. So
// every write to a device goes through one promise chain, strictly one after another.

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
