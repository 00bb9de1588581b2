// Which X-keys panel is which, in the words profiles use. The xkeys library's product table knows every
// model by its USB product id and interface; profiles match a short id made from the product's name
// ("XK-3 Foot Pedal" is "xk-3-foot-pedal", "XK-24" is "xk-24"), the same whichever of its USB modes
// (product ids) the panel is in.
import { XKeys, type Product } from '@xkeys-lib/core';

/** P.I. Engineering's USB vendor id (05f3): every X-keys carries it. */
export const XKEYS_VENDOR_ID: number = XKeys.vendorId;

/** What the USB listing says of a HID device. */
export interface HidIdentity {
  vendorId: number;
  productId: number;
  /** null where the platform does not say (the library then matches any interface). */
  interface: number | null;
  product?: string;
}

/** The library's product for a listed HID device, or null when it is no X-keys panel (or another interface of one). */
export function xkeysProduct(device: HidIdentity): Product | null {
  return XKeys.filterDevice({ product: device.product, vendorId: device.vendorId, productId: device.productId, interface: device.interface })?.product ?? null;
}

/** "XK-3 Foot Pedal" → "xk-3-foot-pedal" */
export function modelIdOf(product: Pick<Product, 'name'>): string {
  return product.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
