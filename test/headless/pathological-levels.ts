/**
 * Pathological levels for the simulation-budget tests: `count` identical objects stacked on one spot,
 * so every pair overlaps (n bodies, n(n−1)/2 contacts before the first step).
 */
export function pathologicalXml(kind: 'spot' | 'pigs' | 'tnt', count = kind === 'pigs' ? 1000 : 500): string {
  const object = {
    spot: '<Block type="SquareTiny" material="wood" x="2" y="-3" rotation="0" />',
    pigs: '<Pig type="BasicSmall" x="2" y="-3" rotation="0" />',
    tnt: '<TNT type="" x="2" y="-3" rotation="0" />',
  }[kind];
  return [
    '<?xml version="1.0" encoding="utf-16"?>',
    '<Level width="3">',
    '  <Camera x="2" y="0" minWidth="17.34656" maxWidth="22.34656" />',
    '  <Birds>',
    '    <Bird type="BirdRed" />',
    '  </Birds>',
    '  <Slingshot x="-9" y="-2.5" />',
    '  <GameObjects>',
    ...Array.from({ length: count }, () => `    ${object}`),
    '  </GameObjects>',
    '</Level>',
  ].join('\n');
}
