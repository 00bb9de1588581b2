// One request to the recorder, its answer read whole as text, straight from undici's dispatcher.
//
// Why not undici's `request()`: for every request it makes a stream for the answer's body (a Readable,
// its events and buffering), parses the answer's headers into an object, and wants an AbortSignal to
// give a request up, and a signal is an AbortController and an EventTarget with listeners (10 µs each
// on node 20) made for each of a bridge's ~30 reads a second, nearly all of which are answered in time.
// An answer here is a few kB of JSON read whole, so the body's chunks are kept as they come and decoded
// once at its end; a request is given up through the dispatcher's own controller.
import type { Dispatcher } from 'undici';

/** The recorder's answer: its status and its body, decoded as UTF-8. */
export interface TextAnswer {
  status: number;
  text: string;
}

/**
 * Sends `options` over `dispatcher`. `answer` settles once: with the whole answer, with the error the
 * transport reports, or with the reason given to `stop` or by `late`.
 *
 * `late` is asked as the request gets its connection, just before it would be written: a reason (the
 * moment it may leave has passed) gives it up there, never sent. A timer that calls `stop` is not enough
 * on its own: on a starved event loop it runs late, and a connection freed meanwhile would send a request
 * whose time was up (a command checked before its deadline must leave by a known moment, or never).
 */
export class TextRequest implements Dispatcher.DispatchHandler {
  readonly answer: Promise<TextAnswer>;
  private resolve!: (answer: TextAnswer) => void;
  private reject!: (error: unknown) => void;
  private controller: Dispatcher.DispatchController | undefined;
  private stopped: Error | undefined;
  private status = 0;
  private readonly chunks: Buffer[] = [];

  constructor(
    dispatcher: Dispatcher,
    options: Dispatcher.DispatchOptions,
    private readonly late: () => Error | undefined = () => undefined,
  ) {
    this.answer = new Promise<TextAnswer>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    try {
      dispatcher.dispatch(options, this);
    } catch (error) {
      this.reject(error);
    }
  }

  /**
   * Gives the request up now: `answer` rejects with `reason` at once, and the request is aborted where
   * it is (a request still waiting for a connection is aborted as it gets one, before it is sent).
   */
  stop(reason: Error): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    this.controller?.abort(reason);
    this.reject(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped !== undefined) return controller.abort(this.stopped);
    const late = this.late();
    if (late !== undefined) this.stop(late);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    // Decoded once, whole: a character split between two chunks is joined before it is decoded.
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.resolve({ status: this.status, text: body.toString('utf8') });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
}
