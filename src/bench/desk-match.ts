// The desk bench's presses matched to the writes that reached the recorder, by channel and time: each
// write belongs to the latest press on its channel sent before it that no write has claimed. A press no
// write answers is counted (the bridge sent nothing for it: refused, or still waiting when the window
// closed); a write no press explains is counted too, and the caller treats it as an error.
import { expandPath, operations } from '../api/operations.js';
import type { LoggedRequest } from '../simulator/request-log.js';

export interface SentPress {
  /** 0-based channel whose key was pressed. */
  channel: number;
  /** preciseNow() when the press was let go (a tap fires on release: the key also has a hold). */
  at: number;
}

export interface ArrivedWrite {
  channel: number;
  receivedAt: number;
}

export interface PressMatch {
  /** ms from each answered press to its write's arrival, in the order the writes came. */
  latencies: number[];
  /** Presses no write answered. */
  unanswered: number;
  /** Writes no press explains. */
  unexplained: number;
}

/**
 * Both ends stamp with performance.timeOrigin + performance.now() (one machine's clocks); `slackMs`
 * allows for the two processes' origins being taken a little apart.
 */
export function matchPresses(presses: readonly SentPress[], writes: readonly ArrivedWrite[], slackMs = 1): PressMatch {
  const claimed = new Set<number>();
  const latencies: number[] = [];
  let unexplained = 0;
  for (const write of writes) {
    let found = -1;
    presses.forEach((press, i) => {
      if (press.channel === write.channel && press.at <= write.receivedAt + slackMs && !claimed.has(i)) found = i;
    });
    if (found < 0) {
      unexplained++;
      continue;
    }
    claimed.add(found);
    latencies.push(write.receivedAt - (presses[found] as SentPress).at);
  }
  return { latencies, unanswered: presses.length - claimed.size, unexplained };
}

/** The simulator's logged requests that are `operation` (recStart, recStop) on one of `channels`, as writes by channel. */
export function writesOf(log: readonly LoggedRequest[], operation: 'recStart' | 'recStop', channels: readonly number[]): ArrivedWrite[] {
  const paths = new Map(channels.map((channel) => [expandPath(operations[operation].path, { index: channel }), channel]));
  return log.flatMap((r) => {
    const channel = r.method === operations[operation].method ? paths.get(r.path) : undefined;
    return channel === undefined ? [] : [{ channel, receivedAt: r.receivedAt }];
  });
}
