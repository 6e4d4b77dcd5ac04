/** The level fault the claiming test engines send (faulty-engine.ts `claim`, `sly`): the tests look for it in a run's files and log. */
export const CLAIM = 'the moon is in the wrong phase';
