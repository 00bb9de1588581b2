// One handler per operation of the interface. The mapped type makes the compiler refuse a simulator
// that leaves an operation out.
import type { GridSize } from '../api/channel.js';
import { CONVERSION_LISTS } from '../api/conversion.js';
import type { Operations, OperationId, PathParams, RequestBody, ResponseValue } from '../api/operations.js';
import { AUDIO_DEVICES, TIMECODES, VIDEO_DEVICES } from './catalogue.js';
import type { SimulatedDisk } from './disk.js';
import type { HostResources } from './host.js';
import type { PreviewRenderer } from './preview.js';
import { emptyProject } from './demo.js';
import { readProject, saveProject } from './project-file.js';
import type { SimulatedRecorder } from './recorder.js';
import { appState, destinationView, presetView, sourceConfig, sourceListEntry } from './views.js';

export interface SimulatorServices {
  recorder: SimulatedRecorder;
  preview: PreviewRenderer;
  host: HostResources;
  /** A simulated recording disk reported instead of the host's, when one is set up. */
  disk: SimulatedDisk | null;
  now: () => number;
  recordingsFolder: string;
}

type Handler<O extends Operations[OperationId]> = (
  input: { params: PathParams<O['path']>; body: RequestBody<O> },
  services: SimulatorServices,
) => ResponseValue<O> | Promise<ResponseValue<O>>;

export type Handlers = { [K in OperationId]: Handler<Operations[K]> };

/** The answer to every write: the interface shows none, so the simulator sends an empty object. */
const ACK = {};
const done = (effect: () => void) => {
  effect();
  return ACK;
};

export const handlers: Handlers = {
  listChannels: (_, { recorder }) => recorder.channels(),
  getChannel: ({ params }, { recorder }) => recorder.channelView(params.index),
  setChannelCount: ({ params }, { recorder }) => done(() => recorder.setGrid(params.grid_size as GridSize)),
  getChannelPreview: async ({ params }, { recorder, preview, now }) => {
    const channel = recorder.channelView(params.index);
    return preview.render({ channelIndex: params.index, sourceName: channel.SourceName, timeMs: now() });
  },
  setChannelSource: ({ params }, { recorder }) => done(() => recorder.setSource(params.index, params.source_name)),
  unsetChannelSource: ({ params }, { recorder }) => done(() => recorder.unsetSource(params.index)),
  addChannelDestination: ({ params }, { recorder }) => done(() => recorder.addDestinationTo(params.index, params.destination_name)),
  deleteChannelDestination: ({ params }, { recorder }) => done(() => recorder.removeDestinationFrom(params.index, params.destination_name)),
  syncOn: ({ params }, { recorder }) => done(() => recorder.syncOn(params.index)),
  syncOff: ({ params }, { recorder }) => done(() => recorder.syncOff(params.index)),
  recStart: ({ params }, { recorder }) => done(() => recorder.recStart(params.index)),
  recPause: ({ params }, { recorder }) => done(() => recorder.recPause(params.index)),
  recStop: ({ params }, { recorder }) => done(() => recorder.recStop(params.index)),
  syncRecStart: (_, { recorder }) => done(() => recorder.syncRecStart()),
  syncRecPause: (_, { recorder }) => done(() => recorder.syncRecPause()),
  syncRecStop: (_, { recorder }) => done(() => recorder.syncRecStop()),

  addSource: ({ body }, { recorder }) => done(() => recorder.project.addSource(body)),
  updateSource: ({ params, body }, { recorder }) => done(() => recorder.updateSource(params.index, body)),
  getSource: ({ params }, { recorder }) => sourceConfig(recorder, params.index),
  listSources: (_, { recorder }) => recorder.project.sources.map(sourceListEntry),
  deleteSource: ({ params }, { recorder }) => done(() => recorder.deleteSource(params.index)),

  addDestination: ({ body }, { recorder }) => done(() => recorder.project.addDestination(body)),
  updateDestination: ({ params, body }, { recorder }) => done(() => recorder.updateDestination(params.index, body)),
  getDestination: ({ params }, { recorder }) => destinationView(recorder.project.destination(params.index), params.index),
  listDestinations: (_, { recorder }) => recorder.project.destinations.map(destinationView),
  deleteDestination: ({ params }, { recorder }) => done(() => recorder.deleteDestination(params.index)),

  addPreset: ({ body }, { recorder }) => done(() => recorder.project.addPreset(body)),
  updatePreset: ({ params, body }, { recorder }) => done(() => recorder.project.updatePreset(params.index, body)),
  getPreset: ({ params }, { recorder }) => presetView(recorder.project.preset(params.index), params.index),
  getPresetFormats: ({ params }, { recorder }) => recorder.project.presetFormats(params.index),
  getPresetVideoCodecs: ({ params }, { recorder }) => [...recorder.project.presetContainer(params.index).videoCodecs],
  getPresetAudioCodecs: ({ params }, { recorder }) => [...recorder.project.presetContainer(params.index).audioCodecs],
  getPresetTimecodes: ({ params }, { recorder }) => {
    recorder.project.preset(params.index);
    return TIMECODES.map((t) => ({ ...t }));
  },
  listPresets: (_, { recorder }) => recorder.project.presets.map(presetView),
  deletePreset: ({ params }, { recorder }) => done(() => recorder.project.deletePreset(params.index)),

  getAudioDevices: () => ({ Audio: AUDIO_DEVICES.map((d) => ({ ...d })) }),
  getVideoDevices: () => VIDEO_DEVICES.map(({ Type, Index, Name }) => ({ Type, Index, Name })),

  getAppState: (_, { recorder }) => appState(recorder),
  getConversionLists: () => Object.fromEntries(Object.entries(CONVERSION_LISTS).map(([name, values]) => [name, [...values]])),
  setConversionConfig: ({ body }, { recorder }) => done(() => Object.assign(recorder.project.conversion, body)),
  getConversionConfig: (_, { recorder }) => ({ ...recorder.project.conversion }),
  getSettings: (_, { recorder }) => ({ ...recorder.settings }),
  updateSettings: ({ body }, { recorder }) => done(() => recorder.updateSettings(body)),
  newSession: (_, { recorder, recordingsFolder }) =>
    done(() => recorder.replaceProject(emptyProject(recordingsFolder, recorder.project.grid), 'start a new session')),
  saveProject: async ({ body }, { recorder }) => {
    await saveProject(recorder.project, body.Path);
    return ACK;
  },
  loadProject: async ({ body }, { recorder, recordingsFolder }) => {
    const project = await readProject(body.Path, recordingsFolder);
    recorder.replaceProject(project, `load ${body.Path}`);
    return ACK;
  },
  getResources: async (_, { recorder, host, disk }) => {
    const sample = await host.sample(recorder.project.destinations.filter((d) => d.Type === 'Local File Recording').map((d) => d.Location));
    return disk === null ? sample : { ...sample, DiskInfo: [disk.reading(recorder)] };
  },
  getSyncState: (_, { recorder }) => recorder.syncState(),
  getSchedule: (_, { recorder }) => recorder.schedule(),
  setSchedule: ({ body }, { recorder }) => done(() => recorder.setSchedule(body)),
  getDialog: (_, { recorder }) => recorder.dialogState(),
  answerDialog: ({ params }, { recorder }) => done(() => recorder.answerDialog(params.action)),
};
