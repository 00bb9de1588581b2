// The project the simulator starts with, so `npm start` shows a recorder worth pressing keys at:
// sixteen cameras on capture inputs, a stage stream, file and streaming destinations.
import type { GridSize } from '../api/channel.js';
import { VIDEO_DEVICES, VIDEO_TYPE } from './catalogue.js';
import { Project } from './project.js';

/** The encoder library a new session starts with. */
export function withDefaultPresets(project: Project): Project {
  project.addPreset({ Name: 'H.264 8 Mbps', Type: 'Local File Recording', Format: 'MP4', VideoCodec: 'H.264', AudioCodec: 'AAC', VideoBitrate: '8000' });
  project.addPreset({ Name: 'ProRes 422 HQ', Type: 'Local File Recording', Format: 'MOV', VideoCodec: 'ProRes 422 HQ', AudioCodec: 'PCM', VideoBitrate: '220000' });
  project.addPreset({ Name: 'RTMP 6 Mbps', Type: 'Network Streaming', Format: 'FLV (RTMP)', VideoCodec: 'H.264', AudioCodec: 'AAC', VideoBitrate: '6000' });
  return project;
}

export function emptyProject(recordingsFolder: string, grid: GridSize): Project {
  const project = withDefaultPresets(new Project(recordingsFolder));
  project.grid = grid;
  return project;
}

export function demoProject(recordingsFolder: string, grid: GridSize): Project {
  const project = emptyProject(recordingsFolder, grid);
  project.addDestination({ Name: 'Local Disk', Location: recordingsFolder, PresetName: 'H.264 8 Mbps' });
  project.addDestination({ Name: 'Archive ProRes', Location: recordingsFolder, PresetName: 'ProRes 422 HQ', NamingTemplate: '%source%_%date%_%time%_hq' });
  project.addDestination({
    Name: 'Live Stream',
    Type: 'Network Streaming',
    URL: 'rtmp://stream.example.invalid/live',
    StreamKey: 'demo-stream-key-not-secret',
    PresetName: 'RTMP 6 Mbps',
  });
  const captures = VIDEO_DEVICES.filter((d) => d.Type === VIDEO_TYPE.capture).slice(0, 16);
  captures.forEach((device, i) => {
    project.addSource({ Name: `Cam ${i + 1}`, VideoDevice: { Type: device.Type, Index: device.Index, Name: device.Name }, VideoFormat: 'HD 1080i 50' });
    project.channels[i] = { SourceName: `Cam ${i + 1}`, Destinations: ['Local Disk'], IsInSync: false };
  });
  const network = VIDEO_DEVICES.find((d) => d.Type === VIDEO_TYPE.network);
  if (network) {
    project.addSource({ Name: 'Stage Stream', VideoDevice: { Type: network.Type, Index: network.Index, Name: network.Name }, StreamURL: 'srt://127.0.0.1:9710', StreamBuffer: 3 });
  }
  return project;
}
