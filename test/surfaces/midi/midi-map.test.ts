// The MIDI map format: what a good map turns into, and what a bad one is told (where, and what was
// expected) in the same file:line:column form as profile problems.
import { describe, expect, it } from 'vitest';
import { formatMidiMapProblem, parseMidiMap } from '../../../src/surfaces/midi/load-midi-map.js';

const HEAD = `name: Test pad
model: test-pad
ports: {input: /test/i}
`;

function problems(text: string): string[] {
  const result = parseMidiMap(text, 'map.yaml');
  if (result.ok) throw new Error('expected problems, the map loaded');
  return result.problems.map(formatMidiMapProblem);
}

describe('MIDI map loading', () => {
  it('is read by the same loader as profiles: a repeated key is named, a file of text is not quoted, a pasted secret is masked', () => {
    expect(problems(`${HEAD}name: Again\ncontrols: []\n`)).toEqual(['map.yaml:4:1: duplicate key "name": each key may appear only once in a mapping']);
    expect(problems('perm:0123456789abcdef\n')).toEqual([
      'map.yaml:1:1: not a MIDI map: a MIDI map is a YAML mapping with name, model, ports and controls, and this file holds text (not repeated here)',
    ]);
    const secret = 'Bearer 3f2a9c1e-7b4d-4e8a-9c1f-2d3e4f5a6b7c';
    const masked = problems(`${HEAD}controls:\n  - {id: pad0, type: note, channel: 1, number: 0, role: "${secret}"}\n`);
    expect(masked.join('\n')).toContain('***');
    expect(masked.join('\n')).not.toContain('3f2a9c1e');
  });

  it('resolves LED styles by name and fills defaults', () => {
    const result = parseMidiMap(
      `${HEAD}leds:
  rgb: {kind: note, values: {off: 0, active: {value: 21, channel: 7}}}
controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button, led: rgb}
  - {id: fader0, type: cc, channel: 1, number: 48, role: fader}
`,
      'map.yaml',
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [pad, fader] = result.loaded.map.controls;
    expect(pad?.led).toEqual({ kind: 'note', values: { off: 0, active: { value: 21, channel: 7 } } });
    expect(fader).toMatchObject({ motorised: false });
    expect(result.loaded.map.init).toEqual([]);
  });

  it('says where a value is out of range and what was expected', () => {
    expect(
      problems(`${HEAD}controls:
  - {id: pad0, type: note, channel: 17, number: 0, role: button}
  - {id: pad1, type: note, channel: 1, number: 1, role: button, led: {kind: note, values: {off: 0, active: 128}}}
`),
    ).toEqual(['map.yaml:5:37: controls[0].channel: expected at most 16, got 17', 'map.yaml:6:108: controls[1].led.values.active: expected at most 127, got 128']);
  });

  it('suggests the encoding meant and requires one for encoders', () => {
    expect(
      problems(`${HEAD}controls:
  - {id: enc0, type: cc, channel: 1, number: 1, role: encoder, encoding: twos-complment}
  - {id: enc1, type: cc, channel: 1, number: 2, role: encoder}
`),
    ).toEqual([
      'map.yaml:5:74: controls[0].encoding: expected one of "twos-complement", "binary-offset", "sign-magnitude", got "twos-complment" (did you mean "twos-complement"?)',
      'map.yaml:6:5: controls[1].encoding: missing: an encoder needs one of "twos-complement", "binary-offset", "sign-magnitude"',
    ]);
  });

  it('refuses a bad port pattern, an unknown field and a missing LED style', () => {
    const found = problems(`name: Test pad
model: test-pad
ports: {input: "/[unclosed/"}
controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button, colour: red}
`);
    expect(found).toEqual(['map.yaml:3:16: ports.input: "/[unclosed/" is not a valid /regular expression/ (Invalid regular expression: /[unclosed/: Unterminated character class); an exact port name has no slashes around it', 'map.yaml:5:65: controls[0].colour: unknown field "colour"']);
    expect(
      problems(`${HEAD}controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button, led: rgb}
`),
    ).toEqual(['map.yaml:5:70: controls[0].led: no LED style "rgb" under leds (there are none)']);
  });

  it('refuses init messages that are not whole, valid MIDI messages', () => {
    expect(
      problems(`${HEAD}init:
  - [0xF0, 0x00, 0x80, 0xF7]
  - [0xF0, 0x00, 0x20]
  - [0xB0, 127]
controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button}
`),
    ).toEqual([
      'map.yaml:5:5: init[0]: byte 2 is 128: between F0 and F7 only 7-bit data (0–127) may appear',
      'map.yaml:6:5: init[1]: a SysEx message must end with 0xF7 (247)',
      'map.yaml:7:5: init[2]: a channel message with status 176 has 3 bytes, not 2',
    ]);
  });

  it('refuses two controls with one id, or sending the same messages', () => {
    expect(
      problems(`${HEAD}controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button}
  - {id: pad0, type: note, channel: 1, number: 1, role: button}
  - {id: pad2, type: note, channel: 1, number: 1, role: button}
`),
    ).toEqual([
      'map.yaml:6:10: controls[1].id: id "pad0" is already used by controls[0]',
      'map.yaml:7:5: controls[2]: sends the same messages as controls[1] (note 1 on channel 1); the bridge could not tell them apart',
    ]);
  });

  it('checks that a role fits what the control sends', () => {
    expect(
      problems(`${HEAD}controls:
  - {id: fader0, type: note, channel: 1, number: 0, role: fader}
  - {id: bend, type: pitchbend, channel: 1, number: 3, role: fader}
  - {id: knob0, type: cc, channel: 1, number: 5, role: knob, led: {kind: cc, values: {off: 0, active: 1}}}
`),
    ).toEqual([
      'map.yaml:5:59: controls[0].role: a note control is a button; faders, knobs and encoders send cc or pitchbend',
      'map.yaml:6:53: controls[1].number: a pitch bend control has no number; leave number out',
      'map.yaml:7:67: controls[2].led: only a button has an LED here',
    ]);
  });
});
