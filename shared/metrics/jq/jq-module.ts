// Loads jq 1.7.1 as built by jq-web (WebAssembly) and exposes libjq's own API to JavaScript.
//
// jq-web only exports the command-line `main`, which parses and compiles the filter on every call
// (about 1 ms). Its wasm file keeps a name section, so we add exports for the libjq functions we
// need (compile once, then start/next per input) without changing a single instruction of jq.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

const require = createRequire(import.meta.url);

/** libjq and libjv functions re-exported from the wasm, under their C names. */
export const LIBJQ_FUNCTIONS = [
  'jq_init',
  'jq_compile',
  'jq_start',
  'jq_next',
  'jq_halted',
  'jq_teardown',
  'jv_parse_sized',
  'jv_get_kind',
  'jv_number_value',
  'jv_copy',
  'jv_free',
  'jv_invalid_has_msg',
  'jv_invalid_get_msg',
  'jv_string_value',
  'jv_string_length_bytes',
  'jv_dump_string_trunc',
  'jv_mem_alloc',
  'jv_mem_free',
] as const;

export type LibjqFunction = (typeof LIBJQ_FUNCTIONS)[number];
const EXPORT_PREFIX = 'libjq_';

export function exportName(fn: LibjqFunction): string {
  return EXPORT_PREFIX + fn;
}

function jqWebPath(): string {
  return require.resolve('jq-web');
}

function readUleb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

/** Function indices by name, from the wasm "name" custom section (subsection 1: function names). */
function functionIndices(module: WebAssembly.Module): Map<string, number> {
  const [section] = WebAssembly.Module.customSections(module, 'name');
  if (!section) throw new Error('jq-web wasm has no name section; cannot reach libjq');
  const bytes = new Uint8Array(section);
  const indices = new Map<string, number>();
  let at = 0;
  while (at < bytes.length) {
    const id = bytes[at++];
    let size: number;
    [size, at] = readUleb(bytes, at);
    const end = at + size;
    if (id === 1) {
      let count: number;
      [count, at] = readUleb(bytes, at);
      for (let i = 0; i < count; i++) {
        let index: number;
        let length: number;
        [index, at] = readUleb(bytes, at);
        [length, at] = readUleb(bytes, at);
        indices.set(Buffer.from(bytes.subarray(at, at + length)).toString('utf8'), index);
        at += length;
      }
    }
    at = end;
  }
  return indices;
}

/** The same wasm binary with one more export per libjq function; every other section is copied as is. */
export function withLibjqExports(wasm: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const indices = functionIndices(new WebAssembly.Module(wasm));
  const EXPORT_SECTION = 7;
  const parts: Uint8Array[] = [wasm.subarray(0, 8)];
  let at = 8;
  let patched = false;
  while (at < wasm.length) {
    const start = at;
    const id = wasm[at++];
    let size: number;
    [size, at] = readUleb(wasm, at);
    const end = at + size;
    if (id === EXPORT_SECTION) {
      const [count, entries] = readUleb(wasm, at);
      const added = LIBJQ_FUNCTIONS.flatMap((fn) => {
        const index = indices.get(fn);
        if (index === undefined) throw new Error(`jq-web wasm has no function ${fn}`);
        const name = Buffer.from(exportName(fn), 'utf8');
        return [...uleb(name.length), ...name, 0 /* function */, ...uleb(index)];
      });
      const body = Buffer.concat([
        Buffer.from(uleb(count + LIBJQ_FUNCTIONS.length)),
        wasm.subarray(entries, end),
        Buffer.from(added),
      ]);
      parts.push(Buffer.from([EXPORT_SECTION, ...uleb(body.length)]), body);
      patched = true;
    } else {
      parts.push(wasm.subarray(start, end));
    }
    at = end;
  }
  if (!patched) throw new Error('jq-web wasm has no export section');
  return Buffer.concat(parts);
}

/** The compiled jq module; compile once per process and hand it to workers (modules are cloneable). */
export function compileJqModule(): WebAssembly.Module {
  const wasm = readFileSync(jqWebPath().replace(/jq\.js$/, 'jq.wasm'));
  return new WebAssembly.Module(withLibjqExports(wasm));
}

export interface EmscriptenImports {
  wasi_snapshot_preview1: Record<string, (...args: number[]) => number>;
  env: Record<string, (...args: number[]) => number>;
}

export type EmscriptenFactory = (options: {
  print: (text: string) => void;
  printErr: (text: string) => void;
  instantiateWasm: (
    imports: EmscriptenImports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => object;
}) => Promise<unknown>;

/**
 * jq-web's Emscripten runtime factory (syscalls, time functions, memory growth).
 *
 * Its CommonJS entry replaces the factory with a promise of a default instance before exporting
 * it, so the factory is taken from the script source, cut just before that line.
 */
export function jqRuntimeFactory(): EmscriptenFactory {
  const path = jqWebPath();
  const source = readFileSync(path, 'utf8');
  const marker = "if (typeof exports === 'object' && typeof module === 'object') {\n  module.exports = jq;";
  const cut = source.indexOf(marker);
  if (cut < 0 || source.indexOf(marker, cut + 1) >= 0) {
    throw new Error(`unexpected jq-web build at ${path}: pin the version in package.json`);
  }
  const load = new Function('require', '__filename', '__dirname', `${source.slice(0, cut)}\nreturn jq;`);
  return load(require, path, dirname(path)) as EmscriptenFactory;
}
