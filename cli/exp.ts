#!/usr/bin/env node
// The `exp` command (also installable as the kubectl plugin `kubectl-exp`). Each subcommand is
// loaded when used, so that `exp metric test` does not pay for the local control plane's modules.
import { BadInput, type Command } from './command.ts';

interface CommandModule {
  run: Command;
  USAGE: string;
}

const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  'metric test': { summary: "run a Metric's query for one version and show the value", load: () => import('./metric-test.ts') },
  'local up': { summary: 'run a local cluster with exp installed (API server, event plane, functions)', load: () => import('./local-up.ts') },
};

const USAGE = `Usage: exp COMMAND [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(13)} ${summary}`)
  .join('\n')}

Run "exp COMMAND --help" for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const name = Object.keys(COMMANDS).find((command) => command.split(' ').every((word, index) => argv[index] === word));
  if (!name) {
    const help = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h';
    (help ? console.log : console.error)(help ? USAGE : `exp: unknown command "${argv.join(' ')}"\n\n${USAGE}`);
    return help ? 0 : 2;
  }
  const { run, USAGE: usage } = await COMMANDS[name].load();
  const args = argv.slice(name.split(' ').length);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    return 0;
  }
  try {
    return await run(args, (text) => console.log(text));
  } catch (error) {
    // parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
    if (error instanceof BadInput || String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`exp ${name}: ${(error as Error).message}`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
