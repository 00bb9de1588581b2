// (a) press to request received and (b) recorder change to key image handed over, with the simulator in
// this process so that both ends are timed on one clock.
import { filter, firstValueFrom } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { startBenchBridge, type BenchBridge } from './harness.js';
import { percentile, preciseNow, sleep } from './stats.js';

export interface PressLatency {
  load: 'idle' | '16 thumbnails';
  pressP50: number;
  pressP99: number;
  bareP50: number;
  bareP99: number;
  samples: number;
}

/** Resolves with when the simulator received the next /api write after `seq`. */
async function nextWrite(sim: RunningSimulator, seq: number): Promise<number> {
  for (;;) {
    const entry = sim.log.list().find((r) => r.seq > seq && r.method !== 'GET');
    if (entry) return entry.receivedAt;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const lastSeq = (sim: RunningSimulator) => sim.log.list().at(-1)?.seq ?? 0;

export async function measurePressLatency(samples: number, thumbnails: boolean): Promise<PressLatency> {
  const sim = await startSimulator({ port: 0, grid: 16 });
  const deck = startBenchBridge(sim.url, sim.token, { thumbnails });
  const bare = new RecorderClient({ url: sim.url, token: sim.token });
  try {
    await sleep(1500); // first polls, and the thumbnails under way
    const press: number[] = [];
    const direct: number[] = [];
    // One press through the bridge: down and up on the surface, timed until the simulator receives it.
    const viaBridge = async (channel: number, start: boolean) => {
      const control = `key${(start ? 16 : 24) + channel}`;
      const done = firstValueFrom(deck.bridge.commands$.pipe(filter((r) => r.control === control)));
      const seq = lastSeq(sim);
      const t0 = preciseNow();
      deck.surface.press(control);
      press.push((await nextWrite(sim, seq)) - t0);
      await done;
    };
    // The same kind of request made directly with undici: rec-stop on a channel that is not recording,
    // which the recorder accepts and which changes nothing. A bare request that did change a channel
    // would have the bridge redraw that key at its next poll, in the middle of a later press.
    const bareRequest = async (channel: number) => {
      const seq = lastSeq(sim);
      const t0 = preciseNow();
      const call = bare.recStop(8 + channel);
      direct.push((await nextWrite(sim, seq)) - t0);
      await call;
    };
    for (let i = 0; i < samples; i++) {
      const channel = i % 8;
      const start = i % 4 < 2;
      // Random pauses put both kinds at every phase of the polls and frames; the order alternates.
      const kinds = i % 2 === 0 ? [viaBridge, bareRequest] : [bareRequest, viaBridge];
      for (const measure of kinds) {
        await sleep(10 + Math.random() * 40);
        await measure(channel, start);
      }
    }
    return { load: thumbnails ? '16 thumbnails' : 'idle', pressP50: percentile(press, 50), pressP99: percentile(press, 99), bareP50: percentile(direct, 50), bareP99: percentile(direct, 99), samples };
  } finally {
    await bare.close();
    await deck.stop();
    await sim.close();
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
  const sim = await startSimulator({ port: 0, grid: 16 });
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
