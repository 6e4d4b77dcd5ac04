/**
 * What a published competition's pages share between the Node side that writes them
 * (orchestrator/publish/site.ts) and the trial page that reads them (./page/trial.js).
 */

/** One trial's stability as `<team>/stability/<C>.json` holds it. */
export interface RecordedVerdict {
  score: number;
  startingObjects?: number;
  movingObjects?: number;
}

/** The data script of one team's letter in the site's `data/` folder. */
export function dataScriptName(team: string, letter: string): string {
  return `${team}.${letter}.js`;
}

/**
 * Whether the page's recomputation agrees with the recorded verdict: the same float32 score (the
 * evaluator stores scores as float32) and the same counts where the file has them; no level and no
 * recorded verdict also agree.
 */
export function agrees(recorded: RecordedVerdict | null, page: RecordedVerdict | null): boolean {
  if (recorded === null || page === null) return recorded === page;
  if (Math.fround(recorded.score) !== Math.fround(page.score)) return false;
  if (recorded.startingObjects !== undefined && recorded.startingObjects !== page.startingObjects) return false;
  return recorded.movingObjects === undefined || recorded.movingObjects === page.movingObjects;
}
