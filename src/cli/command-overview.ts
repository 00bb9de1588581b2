// What `recdeck --help` says of each command: the name it shows (bus shows its one subcommand) and the
// one-line summary. Each command's spec takes both from here (its --help begins with the same summary),
// so they are written once; and they are here, in a module that imports nothing, so that the overview
// (also printed after an unknown command) loads no command's module: loading all nine to read nine
// sentences cost the overview 1.2 s of CPU (the bridge, the simulator, sharp, zod), against 0.1 s for
// --version (npm run bench:cli).

/** The service's name: its unit, its user and state directory (service-plan.ts), and the overview's line. */
export const SERVICE_NAME = 'recdeck';

/** Each command's overview line, keyed by the word that runs it (main.ts's table has the same keys). */
export const COMMAND_OVERVIEW = {
  run: {
    name: 'run',
    summary: 'Runs the bridge: binds the profiles to every Stream Deck, X-keys panel, MIDI controller and web deck it finds, and drives them from the recorder. With no recorder given it starts the embedded simulator.',
  },
  simulate: {
    name: 'simulate',
    summary: 'Runs a simulated Recording Control Service (the whole REST interface, recording in real time) until Ctrl+C, and prints its URL and token.',
  },
  devices: {
    name: 'devices',
    summary: 'Lists the Stream Decks (model, serial, firmware), X-keys panels (model, unit id, firmware) and MIDI ports this machine can see, or why it cannot see them.',
  },
  'setup-udev': {
    name: 'setup-udev',
    summary: 'Writes the udev rules that let recdeck open Stream Decks and X-keys without root (Linux; run with sudo) and reloads udev.',
  },
  call: {
    name: 'call',
    summary: "Sends one of the interface's operations to the recorder and prints the answer.",
  },
  watch: {
    name: 'watch',
    summary: 'Polls the recorder like the bridge and prints each change of its state as one JSON line (connected, error, channels, channel, sync, dialog, schedule, conversion, sources).',
  },
  bus: {
    name: 'bus keygen',
    summary: "Makes the key pair of one poller or panel on the state bus: writes its private key to FILE (mode 0600; an existing file is never overwritten) and prints the facility file's entry with the public key.",
  },
  service: {
    name: 'service',
    summary: `Installs recdeck run as the systemd service "${SERVICE_NAME}" (a unit with its settings in /etc/recdeck/recdeck.env, your profiles in /etc/recdeck/profiles, a dedicated user, the Stream Deck udev rules), or removes it (Linux; run with sudo).`,
  },
  profiles: {
    name: 'profiles check',
    summary: 'Checks a folder of profiles (and the MIDI maps in its midi/ folder) as recdeck run reads them, without starting anything: prints each problem as file:line:column: where: what, and exits 1 if there is any.',
  },
} as const satisfies Record<string, { name: string; summary: string }>;

export type CommandName = keyof typeof COMMAND_OVERVIEW;
