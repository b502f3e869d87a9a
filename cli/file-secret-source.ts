// Secrets for `exp metric test --secret FILE`: Kubernetes Secret manifests in a YAML file.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { formatRef, secretData, type SecretSource } from '../shared/metrics/secret-source.ts';

interface SecretManifest {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Reads the Secrets in `path`; throws an Error that says what is wrong with the file. */
export function fileSecretSource(path: string): SecretSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read secret file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const secrets: SecretManifest[] = [];
  for (const document of parseAllDocuments(text)) {
    // Only the first error's position: its message would quote the line, which may hold a secret value.
    if (document.errors.length) throw new Error(`secret file ${path} is not valid YAML (${document.errors[0].code} at line ${document.errors[0].linePos?.[0].line ?? '?'})`);
    const manifest = document.toJS() as SecretManifest | null;
    if (manifest?.kind === 'Secret') secrets.push(manifest);
  }
  if (!secrets.length) throw new Error(`secret file ${path} holds no object of kind Secret`);
  return {
    async read(ref) {
      const secret = secrets.find(
        (candidate) => candidate.metadata?.name === ref.name && (candidate.metadata?.namespace ?? ref.namespace) === ref.namespace,
      );
      if (!secret) {
        const names = secrets.map((candidate) => candidate.metadata?.name ?? '(unnamed)').join(', ');
        return { kind: 'unavailable', reason: `secret ${formatRef(ref)} is not in ${path} (it holds: ${names})` };
      }
      return { kind: 'found', data: secretData(secret) };
    },
  };
}
