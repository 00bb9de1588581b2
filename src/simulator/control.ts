// The simulator's own control routes under /_sim (outside the interface), for tests and demos:
// raise a dialog, mark a channel wrong, make it lose frames or stop its take by itself, inject faults,
// read the request log, run a tick now.
import type { IncomingMessage } from 'node:http';
import * as z from 'zod';
import { YES_NO } from '../api/app.js';
import { describeIssues } from '../api/issues.js';
import { FaultRules, type FaultInjector } from './faults.js';
import type { SimulatedRecorder } from './recorder.js';
import type { RequestLog } from './request-log.js';
import { SimError } from './sim-error.js';

export interface ControlContext {
  recorder: () => SimulatedRecorder;
  faults: FaultInjector;
  log: RequestLog;
  tick: () => void;
}

const RaiseDialog = z.strictObject({ content: z.string().min(1), buttons: z.enum([YES_NO, 'OK']).default('OK') });
const MarkWrong = z.strictObject({ wrong: z.boolean() });
const count = z.number().int().min(0).max(1_000_000);
const LoseFrames = z.strictObject({ drops: count.default(0), breaks: count.default(0), buffered: count.nullable().default(null) });

function parse<T extends z.ZodType>(schema: T, text: string): z.output<T> {
  let json: unknown;
  try {
    json = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new SimError('body: expected JSON');
  }
  const result = schema.safeParse(json, { reportInput: true });
  if (!result.success) throw new SimError(describeIssues(result.error));
  return result.data;
}

/** The answer to a control request, or null when no control route has that method and path. */
export function handleControl(request: IncomingMessage, path: string, body: string, context: ControlContext): unknown {
  const route = `${request.method} ${path.replace(/\/+$/, '')}`;
  const wrong = /^POST \/_sim\/channels\/(\d+)\/wrong$/.exec(route);
  if (wrong) {
    context.recorder().setWrong(Number(wrong[1]), parse(MarkWrong, body).wrong);
    return {};
  }
  const channelFault = /^POST \/_sim\/channels\/(\d+)\/(drops|stop)$/.exec(route);
  if (channelFault) {
    const index = Number(channelFault[1]);
    if (channelFault[2] === 'stop') context.recorder().stopByItself(index);
    else context.recorder().loseFrames(index, parse(LoseFrames, body));
    return {};
  }
  switch (route) {
    case 'GET /_sim/requests':
      return context.log.list();
    case 'DELETE /_sim/requests':
      context.log.clear();
      return {};
    case 'GET /_sim/faults':
      return { rules: context.faults.list() };
    case 'PUT /_sim/faults':
      context.faults.set(parse(FaultRules, body).rules);
      return { rules: context.faults.list() };
    case 'DELETE /_sim/faults':
      context.faults.set([]);
      return {};
    case 'POST /_sim/dialog': {
      const { content, buttons } = parse(RaiseDialog, body);
      const recorder = context.recorder();
      if (recorder.dialogState().IsDialog) throw new SimError('a dialog is already shown');
      recorder.notify(content, buttons);
      return {};
    }
    case 'POST /_sim/tick':
      context.tick();
      return {};
    default:
      return null;
  }
}
