#!/usr/bin/env node
// The `exp` command (also installable as the kubectl plugin `kubectl-exp`).
import { BadInput, type Command } from './command.ts';
import { localUp, USAGE as LOCAL_UP_USAGE } from './local-up.ts';
import { metricTest, USAGE as METRIC_TEST_USAGE } from './metric-test.ts';

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  'metric test': { run: metricTest, usage: METRIC_TEST_USAGE },
  'local up': { run: localUp, usage: LOCAL_UP_USAGE },
};

const USAGE = `Usage: exp COMMAND [options]

Commands:
  metric test   run a Metric's query for one version and show the value
  local up      run a local Kubernetes-compatible control plane

Run "exp COMMAND --help" for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const name = Object.keys(COMMANDS).find((command) => command.split(' ').every((word, index) => argv[index] === word));
  if (!name) {
    const help = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h';
    (help ? console.log : console.error)(help ? USAGE : `exp: unknown command "${argv.join(' ')}"\n\n${USAGE}`);
    return help ? 0 : 2;
  }
  const { run, usage } = COMMANDS[name];
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
