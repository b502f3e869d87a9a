// First step of `npm test`: installs the Debian packages the tests need when run as root, and
// otherwise stops with what to install.
import { execFileSync } from 'node:child_process';
import { findTool, TOOL_PACKAGES, type Tool } from './tools.ts';

const needed: Tool[] = ['prometheus', 'promtool', 'nginx'];
const missing = needed.filter((tool) => !findTool(tool));
const packages = [...new Set(missing.map((tool) => TOOL_PACKAGES[tool]))];

if (packages.length) {
  if (process.getuid?.() !== 0) {
    console.error(`The tests need ${packages.join(', ')}. Install them (sudo apt-get install ${packages.join(' ')}) and run npm test again.`);
    process.exit(1);
  }
  console.log(`Installing ${packages.join(', ')} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
  const still = needed.filter((tool) => !findTool(tool));
  if (still.length) {
    console.error(`apt-get did not provide ${still.join(', ')}.`);
    process.exit(1);
  }
}
