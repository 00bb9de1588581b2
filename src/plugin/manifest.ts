// The plugin folder's manifest and images, made from the plugin's action list (which is made from the
// action table), so the app offers exactly the actions the plugin runs. Run at build time only
// (scripts/build-plugin.mjs); the images are recdeck's own label tiles, as SVG.
import { ACTIONS } from '../engine/actions/index.js';
import type { LabelPicture } from '../engine/picture.js';
import { recordIconPng } from './png-icon.js';
import { PLUGIN_ACTIONS, PLUGIN_UUID } from './plugin-actions.js';
import { tileSvg } from './svg-tiles.js';

/** The app's own Node, which runs the plugin: the plugin's code is built for it. */
export const APP_NODE_VERSION = '20';

export interface PluginFolderFile {
  /** Path inside the .sdPlugin folder. */
  path: string;
  content: string | Buffer;
}

function titleOf(name: string): string {
  return name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

function labelImage(text: string, icon: LabelPicture['icon'], size: number): string {
  return tileSvg({ kind: 'label', text, icon, color: null, active: null }, { width: size, height: size });
}

/** The manifest (manifest.json) and the SVG images it names. */
export function pluginFolderFiles(version: string): PluginFolderFile[] {
  const files: PluginFolderFile[] = [];
  const actions = PLUGIN_ACTIONS.map((action) => {
    const entry = ACTIONS[action.name as keyof typeof ACTIONS];
    const icon = entry.icon ?? null;
    const label = action.name.replace(/-/g, ' ').toUpperCase();
    files.push({ path: `imgs/actions/${action.name}.svg`, content: labelImage(label, icon, 20) });
    files.push({ path: `imgs/actions/${action.name}-key.svg`, content: labelImage(label, icon, 72) });
    const dial = action.controllers.includes('Encoder');
    return {
      Name: titleOf(action.name),
      UUID: action.uuid,
      Icon: `imgs/actions/${action.name}`,
      Tooltip: action.tooltip,
      PropertyInspectorPath: 'ui/inspector.html',
      Controllers: [...action.controllers],
      States: [{ Image: `imgs/actions/${action.name}-key`, ShowTitle: false }],
      ...(dial ? { Encoder: { layout: '$A0', TriggerDescription: { Rotate: 'Gain in steps (0.5 dB)', Push: 'Gain to 0 dB', Touch: 'Gain to 0 dB' } } } : {}),
      UserTitleEnabled: false,
      SupportedInMultiActions: false,
    };
  });
  files.push({ path: 'imgs/plugin/category-icon.svg', content: labelImage('REC', 'record', 28) });
  files.push({ path: 'imgs/plugin/marketplace.png', content: recordIconPng(256) }, { path: 'imgs/plugin/marketplace@2x.png', content: recordIconPng(512) });
  const manifest = {
    Name: 'recdeck',
    Version: version,
    Author: 'recdeck',
    Actions: actions,
    Category: 'recdeck',
    CategoryIcon: 'imgs/plugin/category-icon',
    CodePath: 'bin/plugin.js',
    Description: 'Truthful keys and safe presses for the Recording Control Service: recording, pause, sync, dialogs and gain, as native actions of the Stream Deck app.',
    Icon: 'imgs/plugin/marketplace',
    SDKVersion: 3,
    Software: { MinimumVersion: '7.1' },
    OS: [
      { Platform: 'mac', MinimumVersion: '12' },
      { Platform: 'windows', MinimumVersion: '10' },
    ],
    // No debugger on a desk: 'enabled' makes the app start the plugin's Node with --inspect, a port that
    // would let anyone on that machine run code inside the plugin (and read the recorder tokens it holds).
    Nodejs: { Version: APP_NODE_VERSION, Debug: 'disabled' },
    UUID: PLUGIN_UUID,
  };
  files.push({ path: 'manifest.json', content: `${JSON.stringify(manifest, null, 2)}\n` });
  return files;
}
