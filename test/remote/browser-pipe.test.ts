// What the browser tests' chromium says on its DevTools pipe, as playwright is given it
// (test/support/chromium-pipe.mjs): a binary WebSocket frame's payload cut to one byte, everything else
// whole, each message in order however the pipe splits it.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { relay, relayed } from '../support/cdp-frame-payloads.mjs';

const SESSION = '"sessionId":"F649D728B5C5A2FE29886C29DBF95227"';
/** A frame event as chromium 156 writes it (payload: a key image's bytes, base64). */
const frame = (opcode: number, payloadData: string) =>
  `{"method":"Network.webSocketFrameReceived","params":{"requestId":"27657.13","timestamp":43192.3691,"response":{"opcode":${opcode},"mask":false,"payloadData":"${payloadData}"}},${SESSION}}`;
const IMAGE = Buffer.alloc(27_648, 7).toString('base64');

describe("the browser's pipe to playwright", () => {
  it("cuts a binary frame's payload to one byte, and keeps the event's every other field", () => {
    const cut = relayed(Buffer.from(frame(2, IMAGE))).toString();
    expect(cut).toBe(frame(2, 'AA=='));
    expect(JSON.parse(cut)).toMatchObject({ params: { response: { opcode: 2, payloadData: 'AA==' } } });
  });

  it('passes text frames, frames sent and every other message as they came', () => {
    for (const message of [
      frame(1, '{\\"type\\":\\"state\\"}'),
      frame(1, IMAGE),
      frame(2, IMAGE).replace('webSocketFrameReceived', 'webSocketFrameSent'),
      `{"id":650,"result":{"result":{"type":"string","value":${JSON.stringify(frame(2, IMAGE))}}},${SESSION}}`,
    ]) {
      expect(relayed(Buffer.from(message)).toString()).toBe(message);
    }
  });

  it('relays whole messages in order however the pipe splits them', async () => {
    const messages = [frame(2, IMAGE.slice(0, 400)), '{"id":1,"result":{}}', frame(1, 'aGk='), frame(2, 'AQID')];
    const said = Buffer.from(messages.map((m) => `${m}\0`).join(''));
    const expected = messages.map((m) => `${relayed(Buffer.from(m)).toString()}\0`).join('');
    expect(expected).toContain(frame(2, 'AA=='));
    for (let at = 1; at < said.length; at += 37) {
      const passed = await buffer(Readable.from([said.subarray(0, at), said.subarray(at)]).pipe(relay()));
      expect(passed.toString(), `split at ${at}`).toBe(expected);
    }
    // Byte by byte, and a message left unended waits for its end.
    const bytes = [...said, ...Buffer.from('{"id":2')].map((b) => Buffer.from([b]));
    expect((await buffer(Readable.from(bytes).pipe(relay()))).toString()).toBe(expected);
  });
});
