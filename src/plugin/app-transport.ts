// How a surface of the plugin writes to the Stream Deck app: the engine's DeviceTransport over the app's
// commands. A key's image is `setImage`, a dial's strip cell is `setFeedback` on its layout's full
// canvas, each a data URL: the app draws SVG, PNG and JPEG itself, so the displays take those encoded
// pictures and no raw pixels (the plugin's renderer makes SVG tiles). The app owns brightness and shows
// no LEDs or rings here, so those capabilities are absent: the output refuses what would need them
// instead of dropping it here.
import type { DeviceTransport, EncodedImage, ImageEncoding } from '../engine/device-output.js';

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

/** The encodings the app draws from a data URL. */
const APP_ENCODINGS: readonly ImageEncoding[] = ['svg', 'png', 'jpeg'];

/** An encoded picture as a data URL the app takes. */
export function dataUrlOf(image: EncodedImage): string {
  switch (image.encoding) {
    case 'svg':
      return svgDataUrl(image.data.toString('utf8'));
    case 'png':
      return `data:image/png;base64,${image.data.toString('base64')}`;
    case 'jpeg':
      return `data:image/jpeg;base64,${image.data.toString('base64')}`;
  }
}

export function appTransport(app: AppCommands, controls: () => readonly string[]): DeviceTransport {
  return {
    images: {
      encoded: {
        encodings: APP_ENCODINGS,
        draw: (control: string, image: EncodedImage) => {
          const url = dataUrlOf(image);
          return control.endsWith(STRIP_SUFFIX) ? app.setFeedback(control.slice(0, -STRIP_SUFFIX.length), { 'full-canvas': url, title: '' }) : app.setImage(control, url);
        },
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
