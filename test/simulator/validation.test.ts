// Every write is checked against the interface's rules; a refused write answers 400 with a message
// naming the field and what was expected, and provably changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

let f: SimulatorFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());

/** Everything the service can tell about its state, to compare before and after a refused write. */
async function snapshot() {
  const c = f.client;
  const [state, sources, conversion, settings, schedule, sync, dialog] = await Promise.all([
    c.getAppState(),
    c.listSources().then((list) => Promise.all(list.map((_, i) => c.getSource(i)))),
    c.getConversionConfig(),
    c.getSettings(),
    c.getSchedule(),
    c.getSyncState(),
    c.getDialog(),
  ]);
  const presets = await c.listPresets();
  return { state, sources: sources.map(({ AudioMeters: _moving, ...rest }) => rest), conversion, settings, schedule, sync, dialog, presets };
}

const cases: ReadonlyArray<[string, string, string, string | undefined, RegExp | string]> = [
  // [what, method, path, body, expected message]
  ['grid size', 'PUT', '/api/channels/count/3', undefined, 'grid_size: expected one of 1, 4, 9, 16, got 3'],
  ['channel index not a number', 'PUT', '/api/channels/x/rec-start', undefined, 'index: expected a non-negative integer, got "x"'],
  ['source index out of range', 'GET', '/api/sources/99', undefined, 'index: expected a source index from 0 to 16, got 99'],
  ['destination index out of range', 'DELETE', '/api/destinations/7', undefined, 'index: expected a destination index from 0 to 2, got 7'],
  ['preset index out of range', 'PUT', '/api/presets/9', '{}', 'index: expected a preset index from 0 to 2, got 9'],
  ['body not JSON', 'POST', '/api/sources', '{Name:', 'body: expected a JSON object, got text that is not JSON'],
  ['body an array', 'PUT', '/api/app/settings', '[]', 'body: expected a JSON object, got an array'],
  ['body missing', 'PUT', '/api/app/schedule', undefined, 'body: expected a JSON object, got nothing'],
  ['StreamBuffer above 9', 'PUT', '/api/sources/0', '{"StreamBuffer":12}', 'StreamBuffer: expected an integer from 0 to 9, got 12'],
  ['StreamBuffer not whole', 'PUT', '/api/sources/0', '{"StreamBuffer":1.5}', 'StreamBuffer: expected an integer from 0 to 9, got 1.5'],
  ['AudioGain as a number', 'PUT', '/api/sources/0', '{"AudioGain":-6}', 'AudioGain: expected a string, got -6'],
  ['AudioGain out of range', 'PUT', '/api/sources/0', '{"AudioGain":"40"}', 'AudioGain: expected a gain of at most 20 dB, got 40'],
  ['unknown source field', 'PUT', '/api/sources/0', '{"Gain":"1"}', 'body: unknown field "Gain"'],
  ['video device not in the list', 'PUT', '/api/sources/0', '{"VideoDevice":{"Type":0,"Index":40,"Name":"Nope"}}', /^VideoDevice: no video device/],
  ['video format of another device', 'PUT', '/api/sources/0', '{"VideoFormat":"UHD 2160p 25"}', /^VideoFormat: expected one of "HD 1080i 50"/],
  ['video line the device lacks', 'PUT', '/api/sources/0', '{"VideoLine":"HDMI"}', 'VideoLine: expected one of "SDI" for DeckLink Quad 2 (1), got "HDMI"'],
  ['embedded audio as LTC', 'PUT', '/api/sources/0', '{"LTCTimecode":{"Type":0,"Index":0,"Name":"Embedded audio (video device only)"}}', /^LTCTimecode: .* carries no LTC/],
  ['network source without URL', 'POST', '/api/sources', '{"Name":"N","VideoDevice":{"Type":1,"Index":0,"Name":"Network Stream"}}', /^StreamURL: a network stream source needs a URL/],
  ['stream URL with a bad scheme', 'POST', '/api/sources', '{"Name":"N","VideoDevice":{"Type":1,"Index":0,"Name":"Network Stream"},"StreamURL":"ftp://x"}', /^StreamURL: expected a URL with one of/],
  ['duplicate source name', 'PUT', '/api/sources/1', '{"Name":"Cam 1"}', 'Name: a source named "Cam 1" already exists (index 0)'],
  ['destination Type not allowed', 'POST', '/api/destinations', '{"Type":"Tape"}', 'Type: expected one of "Local File Recording", "Network Streaming", got "Tape"'],
  ['PostCapturingAction not allowed', 'PUT', '/api/destinations/0', '{"PostCapturingAction":"Delete"}', /^PostCapturingAction: expected one of "Do Nothing"/],
  ['move without a target', 'PUT', '/api/destinations/0', '{"PostCapturingAction":"Move after recording to"}', /^PostCapturingActionTarget: "Move after recording to" needs an absolute folder path/],
  ['relative Location', 'PUT', '/api/destinations/0', '{"Location":"recordings"}', /^Location: a file recording needs an absolute folder path/],
  ['preset that does not exist', 'PUT', '/api/destinations/0', '{"PresetName":"Nope"}', 'PresetName: no preset named "Nope"'],
  ['preset of the other type', 'PUT', '/api/destinations/0', '{"PresetName":"RTMP 6 Mbps"}', 'PresetName: preset "RTMP 6 Mbps" is for "Network Streaming", not "Local File Recording"'],
  ['split interval format', 'PUT', '/api/destinations/0', '{"SplitIntervalString":"30m"}', /^SplitIntervalString: expected an interval as hh:mm:ss/],
  ['streaming without URL', 'POST', '/api/destinations', '{"Type":"Network Streaming"}', /^URL: a network streaming destination needs a URL/],
  ['preset Format not for its Type', 'PUT', '/api/presets/0', '{"Format":"HLS"}', /^Format: expected one of "MP4", "MOV", "MXF", "TS" for "Local File Recording"/],
  ['preset codec not for its Format', 'PUT', '/api/presets/0', '{"VideoCodec":"ProRes 422"}', /^VideoCodec: expected one of "H.264", "H.265" for MP4/],
  ['preset bitrate not digits', 'PUT', '/api/presets/0', '{"VideoBitrate":"8M"}', /^VideoBitrate: expected a bitrate in kbit\/s as whole-number text/],
  ['preset timecode not in the list', 'PUT', '/api/presets/0', '{"StartTimecode":{"Type":9,"Name":"Moon"}}', /^StartTimecode: expected one of/],
  ['preset in use cannot go', 'DELETE', '/api/presets/0', undefined, 'index: preset "H.264 8 Mbps" is used by destination "Local Disk"'],
  ['conversion value not in its list', 'PUT', '/api/app/conversion-config', '{"FrameRate":"26"}', /^FrameRate: expected one of "Original", "23.98"/],
  ['conversion IsEnabled type', 'PUT', '/api/app/conversion-config', '{"IsEnabled":"yes"}', 'IsEnabled: expected a boolean, got "yes"'],
  ['schedule time format', 'PUT', '/api/app/schedule', '{"StartTime":"9:00"}', 'StartTime: expected a time as hh:mm (00:00 to 23:59), got "9:00"'],
  ['schedule hour out of range', 'PUT', '/api/app/schedule', '{"StopTime":"24:00"}', 'StopTime: expected a time as hh:mm (00:00 to 23:59), got "24:00"'],
  ['ScheduleType not allowed', 'PUT', '/api/app/schedule', '{"ScheduleType":"Some"}', 'ScheduleType: expected one of "All channels", "In-sync only", got "Some"'],
  ['enabling a schedule without times', 'PUT', '/api/app/schedule', '{"IsEnabled":true,"StartTime":"08:00"}', 'StopTime: expected hh:mm to enable the schedule, got null'],
  ['read-only preference', 'PUT', '/api/app/settings', '{"IsNotificationAdmin":false}', 'body: unknown field "IsNotificationAdmin"'],
  ['preference out of range', 'PUT', '/api/app/settings', '{"PreviewRefresh":0}', 'PreviewRefresh: expected an integer from 1 to 60, got 0'],
  ['save without Path', 'PUT', '/api/app/save', '{}', 'Path: expected a string, got nothing'],
  ['save to a relative path', 'PUT', '/api/app/save', '{"Path":"p.json"}', 'Path: expected an absolute file path, got "p.json"'],
  ['set-source of an unknown name', 'PUT', '/api/channels/0/set-source/Nobody', undefined, 'source_name: no source named "Nobody"'],
  ['malformed percent-encoding', 'PUT', '/api/channels/0/add-dest/%E0%A4%A', undefined, 'destination_name: malformed percent-encoding in "%E0%A4%A"'],
];

describe('refused writes', () => {
  /**
   * The state after the last case's refused write, which is the state before this one's: the simulator
   * has no background ticks and its clock does not move, so nothing changes it between two cases (read
   * again, it was the same ~25 requests each time).
   */
  let last: Awaited<ReturnType<typeof snapshot>> | undefined;
  it.each(cases)('%s: 400 naming the field, nothing changed', async (_what, method, path, body, message) => {
    const before = last ?? (await snapshot());
    last = undefined; // read afresh if this case fails before its own snapshot
    const { status, json } = await f.raw(method, path, { body });
    expect(status).toBe(400);
    const error = (json as { Error: string }).Error;
    if (typeof message === 'string') expect(error).toBe(message);
    else expect(error).toMatch(message);
    const after = await snapshot();
    expect(after).toEqual(before);
    last = after;
  });
});

describe('unknown routes', () => {
  it('answer 404 or 405 with a JSON error', async () => {
    expect(await f.raw('GET', '/api/nothing')).toMatchObject({ status: 404, json: { Error: 'no operation GET /api/nothing' } });
    expect(await f.raw('PATCH', '/api/channels')).toMatchObject({ status: 405 });
  });
});
