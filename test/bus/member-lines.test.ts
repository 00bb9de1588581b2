// A member's commands in lines at the poller (src/bus/member-lines.ts): one panel's burst of reads never
// holds another panel's read behind it at the recorder client, a panel's writes reach the recorder in
// the order it sent them, and its press does not wait behind its own reads. The real BusPoller, panels
// and Mosquitto (test/support/facility.ts), the simulator behind a gate that holds single-channel reads
// (GET /api/channels/N) until the test lets them through, so what reached the recorder at each moment
// is seen, not timed. The poller's polls (the channel list, sync, dialog) pass the gate untouched.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, type TestContext } from 'vitest';
import type { BusCallError } from '../../src/bus/bus-recorder.js';
import { MemberLines } from '../../src/bus/member-lines.js';
import { facilityFor, startSimulator, until, type Panel } from '../support/facility.js';

const POLL_MS = 250;

interface Gate {
  url: string;
  /** Every request that reached the recorder through the gate, as "METHOD /path", in order. */
  arrived: string[];
  /** Single-channel reads held at the gate now. */
  held: () => number;
  /** Lets every held read through, and every later one at once. */
  open: () => void;
}

/** A gate in front of the simulator: forwards everything, but holds single-channel reads while shut. */
async function gateBefore(test: Pick<TestContext, 'onTestFinished'>, target: string): Promise<Gate> {
  const to = new URL(target);
  const arrived: string[] = [];
  const waiting: Array<() => void> = [];
  let shut = true;
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const out = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrived.push(`${req.method} ${req.url}`);
      const go = () => forward(req, res, Buffer.concat(chunks));
      if (shut && req.method === 'GET' && /^\/api\/channels\/\d+$/.test(req.url ?? '')) waiting.push(go);
      else go();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  test.onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    held: () => waiting.length,
    open: () => {
      shut = false;
      for (const go of waiting.splice(0)) go();
    },
  };
}

const answerOf = (panel: Panel, method: 'getChannel' | 'recStart' | 'recStop', channel: number): Promise<string> =>
  panel.link.call({ method, args: [channel] }).then(
    () => 'ok',
    (error: BusCallError) => error.message,
  );

describe('MemberLines', () => {
  it("runs a member's commands of one kind one after another, whatever each ends in; other lines at once; keeps no line once done", async () => {
    const lines = new MemberLines();
    const order: string[] = [];
    let endFirst: (() => void) | undefined;
    let failFirst: ((error: Error) => void) | undefined;
    const first = lines.inTurn('panel-a', 'reads', () => new Promise<string>((resolve, reject) => {
      order.push('a1 starts');
      endFirst = () => resolve('a1');
      failFirst = reject;
    }));
    const second = lines.inTurn('panel-a', 'reads', async () => {
      order.push('a2 starts');
      return 'a2';
    });
    const otherMember = lines.inTurn('panel-b', 'reads', async () => {
      order.push('b1 starts');
      return 'b1';
    });
    const ownWrite = lines.inTurn('panel-a', 'writes', async () => {
      order.push('a-write starts');
      return 'a-write';
    });
    expect(await otherMember).toBe('b1');
    expect(await ownWrite).toBe('a-write');
    expect(order).toEqual(['a1 starts', 'b1 starts', 'a-write starts']);
    failFirst?.(new Error('the recorder did not answer'));
    void endFirst;
    await expect(first).rejects.toThrow('the recorder did not answer');
    expect(await second).toBe('a2');
    expect(order).toEqual(['a1 starts', 'b1 starts', 'a-write starts', 'a2 starts']);
    expect(lines.size).toBe(0);
  });
});

describe('lines at the poller, over Mosquitto', () => {
  it("one panel's burst of reads: another panel's read reaches the recorder behind at most one of them; a panel's press does not wait behind its own reads; its writes arrive in order", async (test) => {
    // The poller reads a simulator of the test's own through the gate (the rig's is not known before the
    // rig is up, and the rig waits for the panels to show it live through the poller).
    const sim = await startSimulator();
    test.onTestFinished(() => sim.close());
    const gate = await gateBefore(test, sim.sim.url);
    const rig = await facilityFor(test, {
      pollMs: POLL_MS,
      pollers: ['poller-a'],
      panels: ['panel-a', 'panel-b'],
      poller: () => ({ ttlMs: 3000, recorder: sim, url: gate.url }),
      panel: () => ({ deadlineMs: 8000 }),
    });
    const [a, b] = rig.panels as [Panel, Panel];
    const answers: Array<Promise<string>> = [];
    for (let channel = 0; channel < 6; channel++) answers.push(answerOf(a, 'getChannel', channel));
    await until(() => gate.held() >= 1, "panel-a's first read held at the recorder");
    const bRead = answerOf(b, 'getChannel', 7);
    await until(() => gate.arrived.includes('GET /api/channels/7'), "panel-b's read at the recorder", 8000);
    // panel-a's others wait in its line at the poller, not at the recorder client's connections.
    expect(gate.arrived.filter((r) => /^GET \/api\/channels\/[0-5]$/.test(r))).toEqual(['GET /api/channels/0']);
    // panel-a's presses, while its read is held: they reach the recorder, in the order sent.
    const presses = [answerOf(a, 'recStart', 2), answerOf(a, 'recStop', 2), answerOf(a, 'recStart', 3)];
    expect(await Promise.all(presses)).toEqual(['ok', 'ok', 'ok']);
    expect(gate.arrived.filter((r) => r.startsWith('PUT '))).toEqual(['PUT /api/channels/2/rec-start', 'PUT /api/channels/2/rec-stop', 'PUT /api/channels/3/rec-start']);
    gate.open();
    expect(await bRead).toBe('ok');
    expect(await Promise.all(answers)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    // And panel-a's reads reached the recorder in the order it sent them.
    expect(gate.arrived.filter((r) => /^GET \/api\/channels\/[0-5]$/.test(r))).toEqual([0, 1, 2, 3, 4, 5].map((c) => `GET /api/channels/${c}`));
  }, 30_000);
});
