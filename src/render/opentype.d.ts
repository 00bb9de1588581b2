// opentype.js 2.0 ships no type declarations; this covers only what font.ts uses.
declare module 'opentype.js' {
  /** Outline commands in font units, y up. */
  export type PathCommand =
    | { readonly type: 'M' | 'L'; readonly x: number; readonly y: number }
    | { readonly type: 'Q'; readonly x1: number; readonly y1: number; readonly x: number; readonly y: number }
    | {
        readonly type: 'C';
        readonly x1: number;
        readonly y1: number;
        readonly x2: number;
        readonly y2: number;
        readonly x: number;
        readonly y: number;
      }
    | { readonly type: 'Z' };

  export interface Glyph {
    readonly index: number;
    /** Font units; absent on some empty glyphs. */
    readonly advanceWidth?: number;
    /** Top of the outline in font units; absent on empty glyphs. */
    readonly yMax?: number;
    readonly path: { readonly commands: readonly PathCommand[] };
  }

  /** GPOS lookups, only ever handed back to getKerningValue. */
  export type KerningLookups = readonly object[];

  export interface Font {
    readonly unitsPerEm: number;
    /** The glyph for one character, or .notdef when the font lacks it. */
    charToGlyph(char: string): Glyph;
    readonly position: {
      getKerningTables(script: string): KerningLookups | undefined;
      /** Font units to add to the left glyph's advance. */
      getKerningValue(lookups: KerningLookups, leftIndex: number, rightIndex: number): number;
    };
  }

  const opentype: {
    /** lowMemory: glyphs are parsed when first used instead of all at once (DejaVu has ~6000). */
    parse(buffer: ArrayBuffer, options?: { lowMemory?: boolean }): Font;
  };
  export default opentype;
}
