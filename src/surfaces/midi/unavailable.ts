// Why MIDI cannot be used here, in words that say what to do about it.
import { existsSync } from 'node:fs';
import { messageOf } from '../../api/errors.js';

export function midiUnavailableReason(error: unknown, sequencerPresent: () => boolean = () => existsSync('/dev/snd/seq')): string {
  const reason = messageOf(error);
  if (process.platform !== 'linux' || !/RtMidi|ALSA|snd/i.test(reason) || sequencerPresent()) return reason;
  return `${reason} (no ALSA sequencer: /dev/snd/seq is missing; load the snd-seq kernel module, or give the container /dev/snd)`;
}
