// The plugin's wiring, started by its entry (main.ts) with the real clock, and by tests in their own
// process with a virtual one: it turns the app's events into the deck's input and the deck's drawing into
// the app's commands; everything else is the engine's (plugin-deck.ts). Elgato's SDK is one connection
// per process (it reads `-port -pluginUUID -registerEvent -info` from the command line when it connects),
// so this runs once in a process.
import streamDeck, { type DialAction, type KeyAction } from '@elgato/streamdeck';
import { messageOf } from '../api/errors.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { joinFacility } from './facility-panel.js';
import { PluginDeck, type AppFeedback } from './plugin-deck.js';
import { inspectorAnswer } from './inspector-messages.js';
import { redactSdkLogging } from './log-redaction.js';

export interface PluginStart {
  /** The one clock of the plugin's engine: polls, holds, ages, the facility's bus. */
  time: EngineTime;
}

/** Connects to the app and runs the plugin until the process ends. */
export async function startPlugin({ time }: PluginStart): Promise<void> {
  // Before anything is logged or the app connects: no recorder token reaches the log file (log-redaction.ts).
  redactSdkLogging(streamDeck.logger);
  // The SDK's own level is debug when the app starts Node with --inspect; the raw traffic (trace) never.
  streamDeck.logger.setLevel('info');
  const sdkLog = streamDeck.logger.createScope('recdeck');
  const log: Logger = {
    info: (message) => sdkLog.info(message),
    warn: (message) => sdkLog.warn(message),
    error: (message) => sdkLog.error(message),
    debug: (message) => sdkLog.debug(message),
  };

  /** The action instance the app knows by this context, while it is visible. */
  const actionOf = (context: string): DialAction | KeyAction | undefined => streamDeck.actions.getActionById(context);

  const app: AppFeedback = {
    setImage: async (context, image) => {
      const action = actionOf(context);
      if (action?.isKey() === true) await action.setImage(image);
      else if (action?.isDial() === true) await action.setImage(image);
    },
    setFeedback: async (context, payload) => {
      const action = actionOf(context);
      if (action?.isDial() === true) await action.setFeedback(payload);
    },
    showOk: async (context) => {
      const action = actionOf(context);
      if (action?.isKey() === true) await action.showOk();
    },
    showAlert: async (context) => {
      await actionOf(context)?.showAlert();
    },
  };

  // Global settings `{ "mqtt": … }` join a facility's state bus as a panel (facility-panel.ts).
  const deck = new PluginDeck({ app, log, time, joinFacility: (entry) => joinFacility(entry, { time, log }) });

  streamDeck.actions.onWillAppear((ev) => {
    const coordinates = 'coordinates' in ev.payload ? ev.payload.coordinates : undefined;
    deck.appear({
      context: ev.action.id,
      uuid: ev.action.manifestId,
      device: ev.action.device.id,
      controller: ev.payload.controller === 'Encoder' ? 'Encoder' : 'Keypad',
      row: coordinates?.row ?? 0,
      column: coordinates?.column ?? 0,
      settings: ev.payload.settings,
    });
  });
  streamDeck.actions.onWillDisappear((ev) => deck.disappear(ev.action.id));
  streamDeck.settings.onDidReceiveSettings((ev) => deck.settingsChanged(ev.action.id, ev.payload.settings));
  streamDeck.settings.onDidReceiveGlobalSettings((ev) => void deck.setGlobalSettings(ev.settings));
  streamDeck.actions.onKeyDown((ev) => deck.input(ev.action.id, { type: 'down' }));
  streamDeck.actions.onKeyUp((ev) => deck.input(ev.action.id, { type: 'up' }));
  streamDeck.actions.onDialDown((ev) => deck.input(ev.action.id, { type: 'down' }));
  streamDeck.actions.onDialUp((ev) => deck.input(ev.action.id, { type: 'up' }));
  streamDeck.actions.onDialRotate((ev) => deck.input(ev.action.id, { type: 'rotate', amount: ev.payload.ticks }));
  streamDeck.actions.onTouchTap((ev) => deck.input(ev.action.id, { type: 'touch' }));
  // The property inspector asks what the plugin makes of its settings (it never sends a token this way).
  streamDeck.ui.onSendToPlugin((ev) => {
    void streamDeck.ui.sendToPropertyInspector(inspectorAnswer(ev.payload, deck)).catch((error: unknown) => log.warn(`answering the property inspector failed: ${messageOf(error)}`));
  });

  await streamDeck.connect();
  // The recorders may have been saved before this start: ask for them (the answer comes as didReceiveGlobalSettings).
  void streamDeck.settings.getGlobalSettings().catch((error: unknown) => log.warn(`reading the global settings failed: ${messageOf(error)}`));
}
