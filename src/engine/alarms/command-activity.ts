// What recdeck's own writes to each recorder are doing: how many are under way, and when the last was
// answered and which channels read came first after it. The alarm engine needs it to tell a take recdeck stopped from one stopped by someone or
// something else. It is counted where every command leaves (the recorder's link), so no command path
// (keys, macros, groups, the API, the bus) can go round it.
import { operations } from '../../api/operations.js';
import type { Clock } from '../../api/clock.js';
import type { ClientCall } from '../command-plan.js';
import type { CallResult, RecorderLink } from '../recorder-link.js';
import type { CommandActivity } from './alarm-conditions.js';

const IDLE: CommandActivity = { inFlight: [], lastAnsweredAt: new Map() };

export class CommandActivityLog {
  private readonly activity = new Map<string, CommandActivity>();

  constructor(private readonly clock: Clock) {}

  /** What the recorder's writes are doing now. */
  of(recorder: string): CommandActivity {
    return this.activity.get(recorder) ?? IDLE;
  }

  /** The same link, its writes counted while under way (reads, such as previews and reads at a press, are not commands). */
  watch(link: RecorderLink): RecorderLink {
    const call = <C extends ClientCall>(c: C): Promise<CallResult<C>> => {
      const operation = operations[c.method];
      if (operation.method === 'GET') return link.call(c);
      // A write to /api/channels/{index}/… is about that channel; any other about the whole recorder.
      const channel = operation.path.startsWith('/api/channels/{index}') ? (c.args[0] as number) : null;
      this.change(link.name, (a) => ({ ...a, inFlight: [...a.inFlight, channel] }));
      const answered = () =>
        this.change(link.name, (a) => {
          const inFlight = [...a.inFlight];
          inFlight.splice(inFlight.indexOf(channel), 1);
          return { inFlight, lastAnsweredAt: new Map(a.lastAnsweredAt).set(channel, this.clock.now()), firstReadAfterAnswer: new Map(a.firstReadAfterAnswer).set(channel, link.nextReadNumber('channels')) };
        });
      return link.call(c).finally(answered);
    };
    return {
      name: link.name,
      address: link.address,
      get state$() {
        return link.state$;
      },
      get state() {
        return link.state;
      },
      start: () => link.start(),
      stop: () => link.stop(),
      refresh: (slow) => link.refresh(slow),
      nextReadNumber: (part) => link.nextReadNumber(part),
      ...(link.want ? { want: link.want.bind(link) } : {}),
      ...(link.paceStatePolls ? { paceStatePolls: link.paceStatePolls.bind(link) } : {}),
      call,
      observe: (observer) => link.observe(observer),
    };
  }

  private change(recorder: string, next: (activity: CommandActivity) => CommandActivity): void {
    this.activity.set(recorder, next(this.of(recorder)));
  }
}
