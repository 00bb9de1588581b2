// What chromium-pipe.mjs passes on of what the browser says on its DevTools pipe (see there why): each
// NUL-ended message whole and in order, a binary WebSocket frame's payload cut to one byte. A file of its
// own so that it is tested without a browser (test/remote/browser-pipe.test.ts). Plain JavaScript: it is
// run by node itself (its types: cdp-frame-payloads.d.mts).
import { Transform } from 'node:stream';

const FRAME_RECEIVED = Buffer.from('{"method":"Network.webSocketFrameReceived"');
const BINARY = Buffer.from('"opcode":2,');
const PAYLOAD = Buffer.from('"payloadData":"');
/** One zero byte, base64: playwright drops a frame event whose payload is empty. */
const ONE_BYTE = Buffer.from('AA==');
const END = Buffer.from([0]);

/** A message as playwright is to see it: a binary frame's payload cut to one byte, anything else as it came. */
export function relayed(message) {
  if (!message.subarray(0, FRAME_RECEIVED.length).equals(FRAME_RECEIVED)) return message;
  const payload = message.indexOf(PAYLOAD);
  // The opcode comes before the payload in chromium's JSON; base64 holds no quote, so the next one ends it.
  if (payload === -1 || message.subarray(0, payload).indexOf(BINARY) === -1) return message;
  const from = payload + PAYLOAD.length;
  const to = message.indexOf(0x22, from);
  return to === -1 ? message : Buffer.concat([message.subarray(0, from), ONE_BYTE, message.subarray(to)]);
}

/** The browser's messages, split at their NUL ends (a message may span chunks, a chunk hold many). */
export function relay() {
  let partial = [];
  return new Transform({
    transform(chunk, _encoding, done) {
      let start = 0;
      for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
        const tail = chunk.subarray(start, end);
        this.push(relayed(partial.length === 0 ? tail : Buffer.concat([...partial, tail])));
        this.push(END);
        partial = [];
        start = end + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
      done();
    },
  });
}
