// A recorder that is not the project's simulator: a few lines of HTTP written from the interface
// description alone (channels, sync and dialog as the wire carries them, rec-start and rec-stop, a
// Bearer token), whose state the test sets directly, as someone at the recorder's console would. The
// alarm tests run against it so that what they prove does not rest on the simulator's own behaviour.
// Anything else it is asked answers 400 with an error, as the interface says a recorder does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedChannel {
  Index: number;
  SourceName: string;
  IsRecording: boolean;
  IsSomethingWrong: boolean;
  IsInSync: boolean;
  RecordingDrops: number;
  RecordingBreaks: number;
}

export interface ScriptedRecorder {
  url: string;
  token: string;
  channels: ScriptedChannel[];
  /** Writes received, as "PUT /api/channels/1/rec-stop". */
  writes: string[];
  /** Closes the server and every connection: the recorder is gone. */
  close: () => Promise<void>;
}

export async function startScriptedRecorder(channelCount = 4): Promise<ScriptedRecorder> {
  const token = 'perm:5e0c2b7a-9a51-4d2e-8d0f-6a3f6c1e2b44';
  const channels: ScriptedChannel[] = Array.from({ length: channelCount }, (_, i) => ({ Index: i, SourceName: `Camera ${i + 1}`, IsRecording: false, IsSomethingWrong: false, IsInSync: false, RecordingDrops: 0, RecordingBreaks: 0 }));
  const writes: string[] = [];
  const answer = (response: ServerResponse, status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const wire = (c: ScriptedChannel) => ({
    Index: c.Index,
    SourceName: c.SourceName,
    Destinations: ['Local Disk'],
    IsRecording: c.IsRecording,
    IsSomethingWrong: c.IsSomethingWrong,
    IsRecordingPause: false,
    IsInSync: c.IsInSync,
    IsInSyncRec: false,
    IsAudioPreview: false,
    RecordingDuration: c.IsRecording ? '00:00:07' : '00:00:00',
    RecordingFPS: c.IsRecording ? '25.00' : '0.00',
    RecordingBreaks: String(c.RecordingBreaks),
    RecordingDrops: String(c.RecordingDrops),
    RecordingBuffered: '0',
  });
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.authorization !== `Bearer ${token}`) return answer(response, 400, { Error: 'unauthorized' });
    const route = `${request.method} ${request.url}`;
    const write = /^PUT \/api\/channels\/(\d+)\/rec-(start|stop)$/.exec(route);
    if (write) {
      const channel = channels[Number(write[1])];
      if (!channel) return answer(response, 400, { Error: 'no such channel' });
      writes.push(route);
      channel.IsRecording = write[2] === 'start';
      return answer(response, 200, {});
    }
    switch (route) {
      case 'GET /api/channels':
        return answer(response, 200, channels.map(wire));
      case 'GET /api/app/sync':
        return answer(response, 200, { IsSyncRecording: false, IsSyncRecordingPause: false });
      case 'GET /api/app/dialog':
        return answer(response, 200, { IsDialog: false, DialogContent: '', Buttons: '' });
      default:
        return answer(response, 400, { Error: `not supported here: ${route}` });
    }
  };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => serve(request, response));
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    channels,
    writes,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
