// How a surface of the plugin writes to the Stream Deck app: the engine's DeviceTransport over the app's
// commands. Kept alone in this file (the transport's interface is being split into capabilities; this is
// the one place to port). A key's image is `setImage`, a dial's strip cell is `setFeedback` on its
// layout's full canvas. The app owns brightness and shows no LEDs or rings here, so those capabilities
// are absent: the output refuses what would need them instead of dropping it here.
import type { DeviceTransport, RgbImage } from '../engine/device-output.js';
import { svgOf } from './svg-tiles.js';

/** What the plugin asks of the app for one action instance (its context). */
export interface AppCommands {
  setImage(context: string, image: string | undefined): Promise<void>;
  setFeedback(context: string, payload: Record<string, string>): Promise<void>;
}

/** The control id of a dial's strip cell: its context with this suffix. */
export const STRIP_SUFFIX = '/strip';

/** An SVG document as the app takes it in setImage and in a layout's pixmap. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf8,${encodeURIComponent(svg)}`;
}

export function appTransport(app: AppCommands, controls: () => readonly string[]): DeviceTransport {
  return {
    images: {
      image: (control: string, image: RgbImage) => {
        const url = svgDataUrl(svgOf(image));
        return control.endsWith(STRIP_SUFFIX) ? app.setFeedback(control.slice(0, -STRIP_SUFFIX.length), { 'full-canvas': url, title: '' }) : app.setImage(control, url);
      },
    },
    // Back to the manifest's own image: what the plugin drew no longer holds.
    clearing: {
      clear: async () => {
        for (const control of controls()) if (!control.endsWith(STRIP_SUFFIX)) await app.setImage(control, undefined);
      },
    },
  };
}
