import { parentPort } from 'node:worker_threads';
import { invariant } from '../../core/invariant.js';
import { pngToModelInput } from '../../scoring/similarity/prepare.js';
import type { FromPrepareWorker, ToPrepareWorker } from './prepare-protocol.js';

/**
 * A preprocessing worker: PNG bytes in, the model's input tensor out (transferred, not copied). Decode
 * errors go back as a message for that image; the worker stays up.
 */
const port = parentPort;
invariant(port, 'prepare-worker.ts must run in a worker thread');

port.on('message', (message: ToPrepareWorker) => {
  pngToModelInput(message.png, message.config).then(
    (tensor) => port.postMessage({ type: 'done', id: message.id, tensor } satisfies FromPrepareWorker, [tensor.buffer as ArrayBuffer]),
    (error: unknown) =>
      port.postMessage({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) } satisfies FromPrepareWorker),
  );
});

port.postMessage({ type: 'ready' } satisfies FromPrepareWorker);
