// Finds the external programs the tests use. A missing one fails the test with what to install;
// `npm test` installs them first where it can (test/support/ensure-tools.ts).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian package that provides each program. */
export const TOOL_PACKAGES = { prometheus: 'prometheus', promtool: 'prometheus', nginx: 'nginx', jq: 'jq' } as const;
export type Tool = keyof typeof TOOL_PACKAGES;

const SEARCH_PATH = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/sbin', '/usr/local/bin'];

export function findTool(tool: Tool): string | undefined {
  for (const dir of SEARCH_PATH) {
    const candidate = join(dir, tool);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export function requireTool(tool: Tool): string {
  const path = findTool(tool);
  if (!path) {
    throw new Error(
      `${tool} is not installed; the tests need it. Install the Debian package ` +
        `(apt-get install ${TOOL_PACKAGES[tool]}), or run npm test as root, which installs it.`,
    );
  }
  return path;
}
