import { GRID_LEGEND } from './grid-view.js';

/**
 * How a level is shown to a judge (`--view`):
 * - `image`: the final black-on-white image (after 10 s of physics), sent to a vision model as an
 *   image of the message (Ollama's `images`);
 * - `grid`: the 20 × 16 drop grid as characters (grid-view.ts), the level as placed;
 * - `xml`: the Science Birds level XML, the level as placed.
 */
export const VIEWS = ['image', 'grid', 'xml'] as const;
export type ViewKind = (typeof VIEWS)[number];

export type LevelView = { kind: 'image'; png: Uint8Array } | { kind: 'grid'; text: string } | { kind: 'xml'; text: string };

/** What the judge is told about the form of an answer. */
export function viewPreamble(kind: ViewKind): string {
  switch (kind) {
    case 'image':
      return 'Each level is given as an image: the level after 10 seconds of physics simulation, every block drawn black on a white background. Blocks that fell over or were destroyed show where they ended up.';
    case 'grid':
      return `Each level is given as the grid its blocks were dropped on, before physics: ${GRID_LEGEND}. Blocks fall straight down and rest on what is below them; a block with nothing under part of it may tip over once physics starts.`;
    case 'xml':
      return 'Each level is given as its Science Birds level XML, before physics: every <Block> has a type (SquareTiny = 1×1, RectSmall = 3×1, rotation 90 = standing upright), a material and the x/y of its centre in world units (y up).';
  }
}

/** The text body of an answer (images travel beside the text and get a placeholder line). */
export function viewBody(view: LevelView, imageLabel: string): string {
  if (view.kind === 'image') return `(${imageLabel})`;
  return view.kind === 'grid' ? view.text : view.text.trim();
}
