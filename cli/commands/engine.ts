import { type Command, InvalidArgumentError } from 'commander';
import { readTokenFile } from '../../bridge/listen.js';
import { runHeadlessWorker } from '../../bridge/worker-process.js';
import { SbevalError } from '../../core/errors.js';
import { option, wholeNumber } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval engine --connect ws://host:port --token-file F`: this process becomes an engine for a remote
 * orchestrator (the headless engine behind the bridge protocol). Start as many as you have cores, on
 * as many machines as you have; each one dials in and is handed levels.
 */
interface EngineFlags {
  connect: string;
  token?: string;
  tokenFile?: string;
  instance?: string;
  maxRetries: number;
  quiet?: boolean;
}

function wsUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as ws://127.0.0.1:8765');
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new InvalidArgumentError('expected a ws:// or wss:// URL');
  return value;
}

export function registerEngineCommands(program: Command): void {
  program
    .command('engine')
    .description(COMMAND_SUMMARIES.engine)
    .addOption(option('--connect <url>', 'the orchestrator endpoint, e.g. ws://127.0.0.1:8765', { parse: wsUrl, required: true }))
    .addOption(option('--token-file <file>', 'a file whose first line is the endpoint token (what sbeval run prints; keeps the token out of `ps`)'))
    .addOption(option('--token <token>', 'the endpoint token itself (visible to every user in `ps`: prefer --token-file or SBEVAL_TOKEN)'))
    .addOption(option('--instance <name>', "a name for this worker in the orchestrator's logs (set by launchers)"))
    .addOption(option('--max-retries <n>', 'failed connection attempts in a row before giving up', { parse: wholeNumber(1), default: 20 }))
    .option('--quiet', 'no connection log on stderr')
    .addHelpText(
      'after',
      '\nThe worker reconnects with backoff when the connection drops and exits 0 when the orchestrator says bye.\n' +
        'The token comes from --token-file, else --token, else SBEVAL_TOKEN.\n' +
        'Example:\n  sbeval engine --connect ws://10.0.0.5:8765 --token-file ~/.sbeval-token\n',
    )
    .action(async (flags: EngineFlags) => {
      const token = flags.tokenFile !== undefined ? readTokenFile(flags.tokenFile).token : (flags.token ?? process.env.SBEVAL_TOKEN);
      if (!token) throw new SbevalError('config', 'no token', 'pass --token-file <file> (the one sbeval run names) or set SBEVAL_TOKEN');
      const log = flags.quiet ? () => {} : (line: string) => process.stderr.write(`sbeval engine${flags.instance ? ` ${flags.instance}` : ''}: ${line}\n`);
      await runHeadlessWorker({ url: flags.connect, token, ...(flags.instance ? { instance: flags.instance } : {}), maxRetries: flags.maxRetries, log });
    });
}
