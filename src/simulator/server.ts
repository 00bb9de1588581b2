// The simulated Recording Control Service on node:http: authorization, routing through the shared
// operation table, body checks with the shared schemas, fault injection and the request log.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../api/app.js';
import type { GridSize } from '../api/channel.js';
import { delay, type PreciseClock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import { describeIssues } from '../api/issues.js';
import { operations, type Operation } from '../api/operations.js';
import { authorizationHeader } from '../api/token.js';
import { handleControl } from './control.js';
import { demoProject } from './demo.js';
import { EncodedAnswers } from './encoded-answers.js';
import { FaultInjector } from './faults.js';
import { handlers, type SimulatorServices } from './handlers.js';
import { SimulatedDisk, type SimulatedDiskOptions } from './disk.js';
import { HostResources } from './host.js';
import { PreviewRenderer } from './preview.js';
import { readProject } from './project-file.js';
import { seededRandom } from './random.js';
import { SimulatedRecorder } from './recorder.js';
import { RequestLog } from './request-log.js';
import { matchRoute } from './router.js';
import { SimError } from './sim-error.js';

export interface SimulatorOptions {
  /** Default 9000, the product's; 0 picks a free port. */
  port?: number;
  host?: string;
  /** "perm:<uuid>" (a "Bearer " prefix is accepted); generated when absent. */
  token?: string;
  grid?: GridSize;
  /** A project file to load at start instead of the demo project. */
  projectFile?: string;
  /** Seed of the live values and fault decisions (default 1). */
  seed?: number;
  /** The recorder's clock (its counters, schedule, ticks and injected delays); tests pass virtual time. */
  clock: PreciseClock;
  /** Folder that file destinations record into (created); default a folder under the OS temp dir. */
  recordingsFolder?: string;
  /** Previews are still pictures (benchmarks of an unchanged preview); default false. */
  stillPreviews?: boolean;
  /** Tick period in ms (counters, schedule); 0 leaves ticking to the caller. Default 1000. */
  tickMs?: number;
  /** A simulated recording disk that fills as channels record, reported instead of the host's disks. */
  disk?: SimulatedDiskOptions;
}

export interface RunningSimulator {
  url: string;
  /** The token in the form the product issues: perm:<uuid>. */
  token: string;
  port: number;
  recorder: () => SimulatedRecorder;
  /** The simulated disk, when one was set up (its true time left, for tests). */
  disk: SimulatedDisk | null;
  log: RequestLog;
  faults: FaultInjector;
  tick: () => void;
  close: () => Promise<void>;
}

const DEFAULT_SETTINGS = (logFolder: string): Settings => ({
  LogFolder: logFolder,
  PreviewRefresh: 5,
  LoadLastSession: false,
  PreviewStretch: false,
  AlwaysShowStatistics: true,
  AlwaysShowAudioMeters: true,
  StartAtStartup: false,
  OpenAsync: true,
  IsNotificationAdmin: true,
});

const MAX_BODY_BYTES = 1 << 20;

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const clock = options.clock;
  const now = () => clock.now();
  const seed = options.seed ?? 1;
  const token = `perm:${options.token?.replace(/^bearer\s+/i, '').replace(/^perm:/, '') ?? randomUUID()}`;
  const expectedAuthorization = authorizationHeader(token);
  const recordingsFolder = options.recordingsFolder ?? join(tmpdir(), 'recdeck-simulator', 'recordings');
  mkdirSync(recordingsFolder, { recursive: true });
  const grid = options.grid ?? 4;
  const project = options.projectFile ? await readProject(options.projectFile, recordingsFolder) : demoProject(recordingsFolder, grid);
  if (options.projectFile && options.grid) project.grid = options.grid;

  const services: SimulatorServices = {
    recorder: new SimulatedRecorder({ now, random: seededRandom(seed), project, settings: DEFAULT_SETTINGS(join(recordingsFolder, '..', 'logs')) }),
    preview: new PreviewRenderer(options.stillPreviews ?? false),
    host: new HostResources(() => clock.precise()),
    disk: options.disk ? new SimulatedDisk(options.disk) : null,
    now,
    recordingsFolder,
  };
  const log = new RequestLog();
  const faults = new FaultInjector(seededRandom(seed ^ 0x5eed));
  const tick = () => services.recorder.tick();
  const control = { recorder: () => services.recorder, faults, log, tick };
  const encoded = new EncodedAnswers();

  const server = createServer((request, response) => {
    void serve(request, response).catch((error: unknown) => {
      process.stderr.write(`simulator: internal error on ${request.method} ${request.url}: ${String((error as Error).stack ?? error)}\n`);
      if (!response.headersSent) answer(response, 500, { Error: `internal simulator error: ${messageOf(error)}` });
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const receivedAt = clock.precise();
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://simulator');
    const path = url.pathname;
    const body = await readBody(request);
    const authorized = isAuthorized(request.headers.authorization, expectedAuthorization);
    const record = (status: number, operation: string | null) =>
      log.add({ at: now(), receivedAt, method, path: request.url ?? path, operation, body: body ?? '', authorized, status });

    if (!authorized) {
      const missing = request.headers.authorization === undefined;
      if (path.startsWith('/api')) record(401, null);
      return answer(response, 401, { Error: missing ? 'Authorization header is missing; send Authorization: Bearer perm:<token>' : 'Authorization token is not valid' });
    }
    if (body === null) return answer(response, 413, { Error: `body: larger than ${MAX_BODY_BYTES} bytes` });

    if (path.startsWith('/_sim/')) {
      try {
        const result = handleControl(request, path, body, control);
        if (result === null) return answer(response, 404, { Error: `no control route ${method} ${path}` });
        return answer(response, 200, result);
      } catch (error) {
        if (error instanceof SimError) return answer(response, 400, { Error: error.message });
        throw error;
      }
    }

    let match: ReturnType<typeof matchRoute>;
    try {
      match = matchRoute(method, path);
    } catch (error) {
      if (!(error instanceof SimError)) throw error;
      record(400, null);
      return answer(response, 400, { Error: error.message });
    }
    if (match === null || match === 'method-not-allowed') {
      const status = match === null ? 404 : 405;
      record(status, null);
      return answer(response, status, { Error: `no operation ${method} ${path}` });
    }

    const plan = faults.plan(method, path);
    if (plan.delayMs > 0) await delay(clock, plan.delayMs);
    if (plan.outcome === 'hang') return void record(0, match.id);
    if (plan.outcome === 'reset') {
      record(0, match.id);
      request.socket.destroy();
      return;
    }
    if (plan.outcome === 'status') {
      record(plan.status, match.id);
      return answer(response, plan.status, { Error: `injected fault: ${plan.status}` });
    }
    if (plan.outcome === 'ignore' && method !== 'GET') {
      record(200, match.id);
      return answer(response, 200, {});
    }

    const operation: Operation = operations[match.id];
    let status = 200;
    let result: unknown;
    try {
      const decodedBody = decodeBody(operation, body);
      const handler = handlers[match.id] as (input: { params: unknown; body: unknown }, s: SimulatorServices) => unknown;
      // Checked and encoded by the operation's schema: the simulator answers nothing the real service would not.
      result = encoded.encode(match.id, operation.response, await handler({ params: match.params, body: decodedBody }, services));
    } catch (error) {
      if (!(error instanceof SimError)) throw error;
      status = 400;
      result = { Error: error.message };
    }
    record(status, match.id);
    if (plan.outcome === 'malformed' && status === 200) return answerText(response, 200, '{"Index": 0, "Sourc');
    return answer(response, status, result);
  }

  const tickMs = options.tickMs ?? 1000;
  const ticker = tickMs === 0 ? null : clock.scheduler.schedule(function repeat() {
    tick();
    this.schedule(undefined, tickMs);
  }, tickMs);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 9000, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address, family } = server.address() as AddressInfo;
  const hostText = family === 'IPv6' ? `[${address}]` : address;

  return {
    url: `http://${hostText}:${port}`,
    token,
    port,
    recorder: () => services.recorder,
    disk: services.disk,
    log,
    faults,
    tick,
    close: async () => {
      ticker?.unsubscribe();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isAuthorized(header: string | undefined, expected: string): boolean {
  if (header === undefined) return false;
  const match = /^bearer\s+(.+)$/i.exec(header.trim());
  return match !== null && `Bearer ${match[1]}` === expected;
}

function decodeBody(operation: Operation, body: string): unknown {
  if (operation.request === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new SimError(body.trim() === '' ? 'body: expected a JSON object, got nothing' : 'body: expected a JSON object, got text that is not JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SimError(`body: expected a JSON object, got ${Array.isArray(json) ? 'an array' : JSON.stringify(json)}`);
  }
  const decoded = operation.request.safeParse(json, { reportInput: true });
  if (!decoded.success) throw new SimError(describeIssues(decoded.error));
  return decoded.data;
}

async function readBody(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, status: number, value: unknown): void {
  answerText(response, status, JSON.stringify(value));
}

function answerText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
