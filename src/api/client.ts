import * as z from 'zod';
import type { Clock } from './clock.js';
import type { ProjectPath, ScheduleWrite, SettingsWrite } from './app.js';
import type { GridSize } from './channel.js';
import type { ConversionWrite } from './conversion.js';
import type { DestinationWrite } from './destination.js';
import { messageOf, RecorderError } from './errors.js';
import { describeIssues } from './issues.js';
import { Pool } from './undici-pool.js';
import { Ack, expandPath, operations, type Operation, type PathParams, type RequestBody, type ResponseValue } from './operations.js';
import type { PresetWrite } from './preset.js';
import type { SourceWrite } from './source.js';
import { RepeatedAnswers } from './repeated-answers.js';
import { secretMask } from './secret-mask.js';
import { TextRequest } from './text-request.js';
import { authorizationHeader } from './token.js';

export interface RecorderClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:9000 (the product's default port). */
  url: string;
  /** API token: "perm:<uuid>", "Bearer perm:<uuid>" or a bare uuid (see authorizationHeader). */
  token: string;
  /** Per-request limit in ms (default 2000). */
  timeoutMs?: number;
  /** Keep-alive connections for reads (default 4); writes have their own two. */
  connections?: number;
  /** Times each request (its limit, its record); default the real clock. */
  clock: Clock;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-request limit. */
  timeoutMs?: number;
  /**
   * A state poll (channels, sync, dialog): sent over connections of its own, so it never waits behind
   * a preview, a meter or a slow read, and its time limit runs from when it is sent.
   */
  lane?: 'state';
}

/** What the client reports about each request, for metrics and audit logs (no token in it). */
export interface RequestRecord {
  method: string;
  path: string;
  startedAt: number;
  durationMs: number;
  status?: number;
  error?: RecorderError;
}

/**
 * A typed client for every operation of the Recording Control Service, over an undici keep-alive
 * pool. Requests are sent exactly once: nothing here retries, because a repeated rec-start or
 * rec-stop is not harmless on a live recorder.
 */
export class RecorderClient {
  readonly url: string;
  private readonly reads: Pool;
  /**
   * Writes (every command) go over their own connections, so that a key press never queues behind
   * polls, previews and meters that hold the read connections.
   */
  private readonly writes: Pool;
  /** One connection for each of the three state reads of a poll. */
  private readonly stateReads: Pool;
  /** The headers of every request, built once: the same object for each read, and for each write with a body. */
  private readonly readHeaders: Record<string, string>;
  private readonly writeHeaders: Record<string, string>;
  /** Applied to every text the recorder sends, before anything else reads it. */
  private readonly mask: (text: string) => string;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly observers = new Set<(record: RequestRecord) => void>();
  /** Each read's last good answer, so that a repeated one is not decoded again. */
  private readonly answers = new RepeatedAnswers();

  constructor(options: RecorderClientOptions) {
    const origin = new URL(options.url);
    this.url = origin.origin;
    const authorization = authorizationHeader(options.token);
    this.readHeaders = { authorization, accept: 'application/json' };
    this.writeHeaders = { ...this.readHeaders, 'content-type': 'application/json' };
    this.mask = secretMask(options.token);
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.clock = options.clock;
    this.reads = new Pool(this.url, { connections: options.connections ?? 4, pipelining: 1 });
    this.writes = new Pool(this.url, { connections: 2, pipelining: 1 });
    this.stateReads = new Pool(this.url, { connections: 3, pipelining: 1 });
  }

  /** Calls `observer` after every request; returns the function that stops it. */
  observe(observer: (record: RequestRecord) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async close(): Promise<void> {
    await Promise.all([this.reads.close(), this.writes.close(), this.stateReads.close()]);
  }

  /** Sends one operation; every typed method below goes through here. */
  async send<O extends Operation>(
    operation: O,
    params: PathParams<O['path']>,
    body: RequestBody<O>,
    options: RequestOptions = {},
  ): Promise<ResponseValue<O>> {
    const path = expandPath(operation.path, params as Record<string, string | number>);
    const startedAt = this.clock.now();
    const report = (status: number | undefined, error?: RecorderError) => {
      const record: RequestRecord = { method: operation.method, path, startedAt, durationMs: this.clock.now() - startedAt, status };
      if (error) record.error = error;
      for (const observer of this.observers) observer(record);
    };
    try {
      const value = await this.exchange(operation, path, body, options);
      report(200);
      return value;
    } catch (error) {
      const failure = error instanceof RecorderError ? error : new RecorderError('network', operation.method, path, messageOf(error));
      report(failure.status, failure);
      throw failure;
    }
  }

  private async exchange<O extends Operation>(operation: O, path: string, body: RequestBody<O>, options: RequestOptions): Promise<ResponseValue<O>> {
    const { method } = operation;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const payload = operation.request === undefined ? undefined : JSON.stringify(z.encode(operation.request, body));
    const pool = method !== 'GET' ? this.writes : options.lane === 'state' ? this.stateReads : this.reads;
    // The limit is a timer on the client's clock, cleared at the answer (not AbortSignal.timeout: that one
    // fires for every request, answered or not), and a moment the request may not leave after, checked as
    // it gets its connection: a timer runs late on a starved event loop, and a connection freed before it
    // ran would send a request past its limit (a command's "leaves by its deadline plus this, or never",
    // src/bus/limits.ts). The caller's signal, when there is one, is listened to only for this request's life.
    let timedOut = false;
    const limit = () => {
      timedOut = true;
      return new Error(`no answer within ${timeoutMs} ms`);
    };
    const leaveBy = this.clock.now() + timeoutMs;
    const sent = new TextRequest(
      pool,
      { method, path, headers: payload === undefined ? this.readHeaders : this.writeHeaders, body: payload },
      () => (this.clock.now() >= leaveBy ? limit() : undefined),
    );
    const timer = this.clock.scheduler.schedule(() => sent.stop(limit()), timeoutMs);
    const { signal } = options;
    const cancel = () => sent.stop(new Error('the request was cancelled'));
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });

    let status: number;
    let raw: string;
    try {
      ({ status, text: raw } = await sent.answer);
    } catch (error) {
      if (signal?.aborted) throw new RecorderError('aborted', method, path, 'the request was cancelled', undefined, { cause: error });
      if (timedOut) throw new RecorderError('timeout', method, path, `no answer within ${timeoutMs} ms`, undefined, { cause: error });
      throw new RecorderError('network', method, path, this.mask(networkMessage(error)), undefined, { cause: error });
    } finally {
      timer.unsubscribe();
      signal?.removeEventListener('abort', cancel);
    }

    // A write succeeded once the service said 200; its body is undocumented, so it is not read.
    if (status === 200 && operation.response === Ack) return undefined as ResponseValue<O>;
    // The same text as this read's last good answer: the same value (the mask is the same function of it).
    const repeated = status === 200 && method === 'GET' ? this.answers.repeat(path, raw) : undefined;
    if (repeated !== undefined) return repeated.value as ResponseValue<O>;
    const text = this.mask(raw);
    if (status !== 200) throw new RecorderError('status', method, path, serviceMessage(text), status);
    let json: unknown;
    try {
      json = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      throw new RecorderError('decode', method, path, `the answer is not JSON: ${excerpt(text)}`, status);
    }
    // Checked without the input kept in the issues (with it, zod's compiled check of an object is several
    // times slower: 19 against 3 µs a source read); a bad answer is checked again with it, for the error.
    const decoded = operation.response.safeParse(json);
    if (!decoded.success) throw badAnswer(operation, path, json, status);
    if (method === 'GET') this.answers.keep(path, raw, decoded.data);
    return decoded.data as ResponseValue<O>;
  }

  // Channels ---------------------------------------------------------------------------------------
  listChannels(o?: RequestOptions) { return this.send(operations.listChannels, {}, undefined, o); }
  getChannel(index: number, o?: RequestOptions) { return this.send(operations.getChannel, { index }, undefined, o); }
  async setChannelCount(grid_size: GridSize, o?: RequestOptions): Promise<void> { await this.send(operations.setChannelCount, { grid_size }, undefined, o); }
  /** The channel's preview as PNG bytes. */
  getChannelPreview(index: number, o?: RequestOptions) { return this.send(operations.getChannelPreview, { index }, undefined, o); }
  async setChannelSource(index: number, source_name: string, o?: RequestOptions): Promise<void> { await this.send(operations.setChannelSource, { index, source_name }, undefined, o); }
  async unsetChannelSource(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.unsetChannelSource, { index }, undefined, o); }
  async addChannelDestination(index: number, destination_name: string, o?: RequestOptions): Promise<void> { await this.send(operations.addChannelDestination, { index, destination_name }, undefined, o); }
  async deleteChannelDestination(index: number, destination_name: string, o?: RequestOptions): Promise<void> { await this.send(operations.deleteChannelDestination, { index, destination_name }, undefined, o); }
  async syncOn(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.syncOn, { index }, undefined, o); }
  async syncOff(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.syncOff, { index }, undefined, o); }
  /** Starts recording, or resumes a paused channel. */
  async recStart(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.recStart, { index }, undefined, o); }
  async recPause(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.recPause, { index }, undefined, o); }
  async recStop(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.recStop, { index }, undefined, o); }
  async syncRecStart(o?: RequestOptions): Promise<void> { await this.send(operations.syncRecStart, {}, undefined, o); }
  async syncRecPause(o?: RequestOptions): Promise<void> { await this.send(operations.syncRecPause, {}, undefined, o); }
  async syncRecStop(o?: RequestOptions): Promise<void> { await this.send(operations.syncRecStop, {}, undefined, o); }

  // Sources ----------------------------------------------------------------------------------------
  async addSource(source: SourceWrite, o?: RequestOptions): Promise<void> { await this.send(operations.addSource, {}, source, o); }
  /** Partial update: omitted fields keep their value. */
  async updateSource(index: number, changes: SourceWrite, o?: RequestOptions): Promise<void> { await this.send(operations.updateSource, { index }, changes, o); }
  getSource(index: number, o?: RequestOptions) { return this.send(operations.getSource, { index }, undefined, o); }
  listSources(o?: RequestOptions) { return this.send(operations.listSources, {}, undefined, o); }
  async deleteSource(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.deleteSource, { index }, undefined, o); }

  // Destinations -----------------------------------------------------------------------------------
  async addDestination(destination: DestinationWrite, o?: RequestOptions): Promise<void> { await this.send(operations.addDestination, {}, destination, o); }
  async updateDestination(index: number, changes: DestinationWrite, o?: RequestOptions): Promise<void> { await this.send(operations.updateDestination, { index }, changes, o); }
  getDestination(index: number, o?: RequestOptions) { return this.send(operations.getDestination, { index }, undefined, o); }
  listDestinations(o?: RequestOptions) { return this.send(operations.listDestinations, {}, undefined, o); }
  async deleteDestination(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.deleteDestination, { index }, undefined, o); }

  // Presets ----------------------------------------------------------------------------------------
  async addPreset(preset: PresetWrite, o?: RequestOptions): Promise<void> { await this.send(operations.addPreset, {}, preset, o); }
  async updatePreset(index: number, changes: PresetWrite, o?: RequestOptions): Promise<void> { await this.send(operations.updatePreset, { index }, changes, o); }
  getPreset(index: number, o?: RequestOptions) { return this.send(operations.getPreset, { index }, undefined, o); }
  getPresetFormats(index: number, o?: RequestOptions) { return this.send(operations.getPresetFormats, { index }, undefined, o); }
  getPresetVideoCodecs(index: number, o?: RequestOptions) { return this.send(operations.getPresetVideoCodecs, { index }, undefined, o); }
  getPresetAudioCodecs(index: number, o?: RequestOptions) { return this.send(operations.getPresetAudioCodecs, { index }, undefined, o); }
  getPresetTimecodes(index: number, o?: RequestOptions) { return this.send(operations.getPresetTimecodes, { index }, undefined, o); }
  listPresets(o?: RequestOptions) { return this.send(operations.listPresets, {}, undefined, o); }
  async deletePreset(index: number, o?: RequestOptions): Promise<void> { await this.send(operations.deletePreset, { index }, undefined, o); }

  // Devices ----------------------------------------------------------------------------------------
  getAudioDevices(o?: RequestOptions) { return this.send(operations.getAudioDevices, {}, undefined, o); }
  /** Video devices as entries (Type, Index, Name), whichever list shape the service sends. */
  getVideoDevices(o?: RequestOptions) { return this.send(operations.getVideoDevices, {}, undefined, o); }

  // Application ------------------------------------------------------------------------------------
  getAppState(o?: RequestOptions) { return this.send(operations.getAppState, {}, undefined, o); }
  getConversionLists(o?: RequestOptions) { return this.send(operations.getConversionLists, {}, undefined, o); }
  async setConversionConfig(changes: ConversionWrite, o?: RequestOptions): Promise<void> { await this.send(operations.setConversionConfig, {}, changes, o); }
  getConversionConfig(o?: RequestOptions) { return this.send(operations.getConversionConfig, {}, undefined, o); }
  getSettings(o?: RequestOptions) { return this.send(operations.getSettings, {}, undefined, o); }
  async updateSettings(changes: SettingsWrite, o?: RequestOptions): Promise<void> { await this.send(operations.updateSettings, {}, changes, o); }
  /** Resets the session; while channels record, the service asks first (a Yes_No dialog). */
  async newSession(o?: RequestOptions): Promise<void> { await this.send(operations.newSession, {}, undefined, o); }
  async saveProject(path: ProjectPath['Path'], o?: RequestOptions): Promise<void> { await this.send(operations.saveProject, {}, { Path: path }, o); }
  async loadProject(path: ProjectPath['Path'], o?: RequestOptions): Promise<void> { await this.send(operations.loadProject, {}, { Path: path }, o); }
  getResources(o?: RequestOptions) { return this.send(operations.getResources, {}, undefined, o); }
  getSyncState(o?: RequestOptions) { return this.send(operations.getSyncState, {}, undefined, o); }
  getSchedule(o?: RequestOptions) { return this.send(operations.getSchedule, {}, undefined, o); }
  /** Both times null disables the schedule. */
  async setSchedule(schedule: ScheduleWrite, o?: RequestOptions): Promise<void> { await this.send(operations.setSchedule, {}, schedule, o); }
  getDialog(o?: RequestOptions) { return this.send(operations.getDialog, {}, undefined, o); }
  /** "ok" confirms or continues; any other action cancels. */
  async answerDialog(action: 'ok' | 'cancel' | (string & {}), o?: RequestOptions): Promise<void> { await this.send(operations.answerDialog, { action }, undefined, o); }
}

/** The error for an answer that fails its schema: each problem named, with what was received. */
function badAnswer(operation: Operation, path: string, json: unknown, status: number): RecorderError {
  const checked = operation.response.safeParse(json, { reportInput: true });
  const problems = checked.success ? 'it does not match its schema' : describeIssues(checked.error, 'answer');
  return new RecorderError('decode', operation.method, path, `unexpected answer: ${problems}`, status);
}

function serviceMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object') {
      for (const key of ['Error', 'error', 'Message', 'message']) {
        const value = (body as Record<string, unknown>)[key];
        if (typeof value === 'string' && value !== '') return value;
      }
    }
    if (typeof body === 'string' && body !== '') return body;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim() === '' ? 'no message' : excerpt(text);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

function networkMessage(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
