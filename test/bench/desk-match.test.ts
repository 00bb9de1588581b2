// The desk bench times each press to the write it caused at the recorder: writes are matched to presses by
// channel and time, and what does not match is counted, never guessed.
import { expect, it } from 'vitest';
import { matchPresses, writesOf } from '../../src/bench/desk-match.js';
import type { LoggedRequest } from '../../src/simulator/request-log.js';

it('pairs each write with the latest earlier press on its channel', () => {
  const presses = [
    { channel: 0, at: 1000 },
    { channel: 1, at: 2000 },
    { channel: 0, at: 3000 },
  ];
  // The writes for channel 1 and the second press on 0 arrive out of press order.
  expect(matchPresses(presses, [{ channel: 0, receivedAt: 1004 }, { channel: 0, receivedAt: 3002 }, { channel: 1, receivedAt: 3010 }])).toEqual({ latencies: [4, 2, 1010], unanswered: 0, unexplained: 0 });
});

it('counts a press no write answered, and a write no press explains', () => {
  const presses = [
    { channel: 0, at: 1000 },
    { channel: 0, at: 5000 },
  ];
  // The first press's write never came: the one write belongs to the second press, not the first.
  expect(matchPresses(presses, [{ channel: 0, receivedAt: 5003 }])).toEqual({ latencies: [3], unanswered: 1, unexplained: 0 });
  // A write before any press on its channel, and one on a channel never pressed.
  expect(matchPresses(presses, [{ channel: 0, receivedAt: 900 }, { channel: 2, receivedAt: 1100 }])).toEqual({ latencies: [], unanswered: 2, unexplained: 2 });
});

it("picks the operation's writes on the channels asked for from the simulator's log", () => {
  const logged = (seq: number, method: string, path: string): LoggedRequest => ({ seq, at: seq, receivedAt: seq + 0.5, method, path, operation: null, body: '', authorized: true, status: 200 });
  const log = [logged(1, 'PUT', '/api/channels/0/rec-start'), logged(2, 'GET', '/api/channels'), logged(3, 'PUT', '/api/channels/4/rec-start'), logged(4, 'PUT', '/api/channels/1/rec-stop'), logged(5, 'PUT', '/api/channels/1/rec-start')];
  expect(writesOf(log, 'recStart', [0, 1])).toEqual([{ channel: 0, receivedAt: 1.5 }, { channel: 1, receivedAt: 5.5 }]);
  expect(writesOf(log, 'recStop', [1])).toEqual([{ channel: 1, receivedAt: 4.5 }]);
});
