// Records every path sbeval's write guard (core/write-guard.ts) lets through, for the write-guard
// test: `node --import <this file> …` with SBEVAL_WRITE_RECORD set to a file, which receives one JSON
// line per guarded write `{path, folder}`. It only listens on the guard's diagnostics channel
// (`sbeval:write`); nothing in sbeval changes.

import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const file = process.env.SBEVAL_WRITE_RECORD;
if (file) subscribe('sbeval:write', (message) => appendFileSync(file, `${JSON.stringify(message)}\n`));
