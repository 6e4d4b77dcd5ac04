/**
 * "Did you mean …?" for a name the user typed (a config key, an enum value): the known name closest
 * by edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
 * neighbours cost 1), compared without case, `-` and `_` (so `sim_trials`, `Rules` and `simTrials`
 * meet their key). A name is offered only when it is close enough to be a slip — at most 1 edit for
 * names of up to 4 characters, else at most a third of the typed name's length — as commander does for
 * options.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const plain = normalise(typed);
  const limit = plain.length <= 4 ? 1 : Math.floor(plain.length / 3);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(plain, normalise(name));
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= limit && normalise(best) !== '' ? best : undefined;
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
