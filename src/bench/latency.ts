// (a) press to request received, with the simulator in a process of its own (a recorder is another
// machine: its work must not hold up the bridge's, nor the floor's), timed on the two processes' clocks;
// and (b) recorder change to key image handed over, with the simulator in this process.
import { filter, firstValueFrom } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { expandPath, operations } from '../api/operations.js';
import type { LoggedRequest } from '../simulator/request-log.js';
import { startSimulator } from '../simulator/server.js';
import { startBenchBridge, type BenchBridge } from './harness.js';
import { LeanHttp } from './lean-http.js';
import { startChildSimulator } from './load.js';
import { percentile, preciseNow, sleep } from './stats.js';
import { realClock } from '../api/clock.js';

export interface PressLatency {
  load: 'idle' | '16 thumbnails';
  pressP50: number;
  pressP99: number;
  /** The floor: the same request sent with node:http over a kept-alive connection (lean-http.ts). */
  floorP50: number;
  floorP99: number;
  /** The same request sent with recdeck's own client. */
  clientP50: number;
  clientP99: number;
  samples: number;
}

type Kind = 'press' | 'client' | 'floor';

const TOKEN = 'perm:00000000-0000-4000-8000-0000000press';
/**
 * The simulator's log of what it received is read every this many samples (three writes each): it keeps
 * its last 2000 requests, and with 16 previews a second beside the polls that is a little over a minute.
 */
const SAMPLES_PER_READ = 30;

/**
 * When each write reached the simulator, from its request log (GET /_sim/requests), matched in order with
 * the moments they were sent here: the writes go one at a time, and nothing else writes meanwhile. Both
 * ends stamp with performance.timeOrigin + performance.now(), which every process on a machine takes from
 * the same clocks. A count that does not match is an error, never a guess.
 */
class ReceiptLog {
  private readonly reader: LeanHttp;
  private seen = 0;
  private readonly sent: Array<{ kind: Kind; at: number }> = [];
  readonly times: Record<Kind, number[]> = { press: [], client: [], floor: [] };

  constructor(url: string) {
    this.reader = new LeanHttp(url, TOKEN, 1);
  }

  /** Everything received so far is not a sample (the connections' first requests). */
  async start(): Promise<void> {
    this.seen = (await this.writes()).at(-1)?.seq ?? this.seen;
  }

  sending(kind: Kind): void {
    this.sent.push({ kind, at: preciseNow() });
  }

  async match(): Promise<void> {
    const writes = await this.writes();
    if (writes.length !== this.sent.length) throw new Error(`the simulator received ${writes.length} writes for the ${this.sent.length} sent since its log was last read`);
    writes.forEach((write, i) => {
      const { kind, at } = this.sent[i] as { kind: Kind; at: number };
      this.times[kind].push(write.receivedAt - at);
    });
    this.sent.length = 0;
    this.seen = writes.at(-1)?.seq ?? this.seen;
  }

  close(): void {
    this.reader.close();
  }

  private async writes(): Promise<LoggedRequest[]> {
    const log = (await this.reader.send('GET', '/_sim/requests')) as LoggedRequest[];
    if ((log[0]?.seq ?? 0) > this.seen + 1) throw new Error("the simulator's request log moved on past writes not yet read: read it more often");
    return log.filter((r) => r.seq > this.seen && r.method !== 'GET');
  }
}

export async function measurePressLatency(samples: number, thumbnails: boolean): Promise<PressLatency> {
  const { url, child } = await startChildSimulator(TOKEN);
  const deck = startBenchBridge(url, TOKEN, { thumbnails });
  const bare = new RecorderClient({ clock: realClock, url, token: TOKEN });
  const lean = new LeanHttp(url, TOKEN, 2);
  const receipts = new ReceiptLog(url);
  try {
    await sleep(1500); // first polls, and the thumbnails under way
    // The first request of each opens its connection: not counted.
    await lean.send('PUT', expandPath(operations.recStop.path, { index: 8 }));
    await bare.recStop(8);
    await receipts.start();
    // One press through the bridge: down and up on the surface, until its command is done.
    const viaBridge = async (channel: number, start: boolean) => {
      const control = `key${(start ? 16 : 24) + channel}`;
      const done = firstValueFrom(deck.bridge.commands$.pipe(filter((r) => r.control === control)));
      receipts.sending('press');
      deck.surface.press(control);
      await done;
    };
    // The same kind of request made directly, with recdeck's client and with the floor: rec-stop on a
    // channel that is not recording, which the recorder accepts and which changes nothing. A direct
    // request that did change a channel would have the bridge redraw that key at its next poll, in the
    // middle of a later press.
    const clientRequest = async (channel: number) => {
      receipts.sending('client');
      await bare.recStop(8 + channel);
    };
    const floorRequest = async (channel: number) => {
      receipts.sending('floor');
      await lean.send('PUT', expandPath(operations.recStop.path, { index: 8 + channel }));
    };
    for (let i = 0; i < samples; i++) {
      const channel = i % 8;
      const start = i % 4 < 2;
      // Random pauses put the three kinds at every phase of the polls and refreshes; the order turns.
      const kinds = [viaBridge, clientRequest, floorRequest];
      for (let k = 0; k < kinds.length; k++) {
        await sleep(10 + Math.random() * 40);
        await (kinds[(i + k) % kinds.length] as (channel: number, start: boolean) => Promise<void>)(channel, start);
      }
      if ((i + 1) % SAMPLES_PER_READ === 0) await receipts.match();
    }
    await receipts.match();
    const { press, client, floor } = receipts.times;
    return {
      load: thumbnails ? '16 thumbnails' : 'idle',
      pressP50: percentile(press, 50),
      pressP99: percentile(press, 99),
      floorP50: percentile(floor, 50),
      floorP99: percentile(floor, 99),
      clientP50: percentile(client, 50),
      clientP99: percentile(client, 99),
      samples,
    };
  } finally {
    receipts.close();
    lean.close();
    await bare.close();
    await deck.stop();
    child.kill('SIGTERM');
  }
}

export interface ChangeLatency {
  pollMs: number;
  p50: number;
  p99: number;
  samples: number;
}

/** A channel starts or stops inside the recorder; how long until its key's new image reaches the surface. */
export async function measureChangeLatency(samples: number, pollMs = 250): Promise<ChangeLatency> {
  const sim = await startSimulator({ clock: realClock, port: 0, grid: 16 });
  const deck: BenchBridge = startBenchBridge(sim.url, sim.token, { thumbnails: false, pollMs });
  try {
    await sleep(1000);
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const index = i % 16;
      const control = `key${index}`;
      await sleep(Math.random() * pollMs); // any phase of the poll
      const drawn = firstValueFrom(deck.surface.output.drawn$.pipe(filter((item) => item.type === 'image' && item.control === control)));
      const t0 = preciseNow();
      sim.recorder().recStart(index);
      await drawn;
      times.push(preciseNow() - t0);
      sim.recorder().recStop(index);
      await sleep(pollMs * 2); // let the stop be drawn before the next sample
    }
    return { pollMs, p50: percentile(times, 50), p99: percentile(times, 99), samples };
  } finally {
    await deck.stop();
    await sim.close();
  }
}
