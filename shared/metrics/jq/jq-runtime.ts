// One jq instance: compiles each expression once and runs it on JSON inputs, synchronously.
// It runs inside a worker thread (see jq-pool.ts), which is terminated if an evaluation runs away.
//
// libjq passes `jv` (a 16-byte struct) by value; in the wasm32 ABI that is a pointer to a copy, and
// a returned `jv` is written through a pointer given as the first argument. Functions that take a
// `jv` consume one reference to it, except jv_string_value and jv_get_kind.
import { compileJqModule, exportName, jqRuntimeFactory, type EmscriptenImports, type LibjqFunction } from './jq-module.ts';
import type { JqCompileOutcome, JqOutcome, JqType } from './jq-outcome.ts';

const JV_SIZE = 16;
const JV_KINDS: readonly (JqType | 'invalid')[] = ['invalid', 'null', 'boolean', 'boolean', 'number', 'string', 'array', 'object'];
const DUMP_LIMIT = 120;
/** Heap limit of one instance: a reply is at most a few MB, so more means a runaway expression. */
export const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const STDERR_LIMIT = 16 * 1024;
/** Compiled programs kept per instance; the least recently used one is freed beyond this. */
const PROGRAM_CACHE_SIZE = 256;

type Exports = Record<string, (...args: number[]) => number> & { memory: WebAssembly.Memory };

export class JqRuntime {
  private exports: Exports;
  private stderr: string[];
  private programs = new Map<string, { state: number } | { error: string }>();
  private memoryLimit: { bytes: number; reached: boolean };

  private constructor(exports: Exports, stderr: string[], memoryLimit: { bytes: number; reached: boolean }) {
    this.exports = exports;
    this.stderr = stderr;
    this.memoryLimit = memoryLimit;
  }

  static async create(module: WebAssembly.Module = compileJqModule(), maxMemoryBytes = DEFAULT_MAX_MEMORY_BYTES): Promise<JqRuntime> {
    const stderr: string[] = [];
    const memoryLimit = { bytes: maxMemoryBytes, reached: false };
    let exports: Exports | undefined;
    const memory = () => new DataView(exports!.memory.buffer);
    const ignore = () => {};
    await jqRuntimeFactory()({
      print: ignore,
      printErr: ignore,
      instantiateWasm(imports: EmscriptenImports, receive) {
        const resizeHeap = imports.env.emscripten_resize_heap;
        // Refusing to grow makes jq's allocation fail, and jq aborts: the worker reports it and is replaced.
        imports.env.emscripten_resize_heap = (requested) => {
          if (requested <= memoryLimit.bytes) return resizeHeap(requested);
          memoryLimit.reached = true;
          return 0;
        };
        const wasi = imports.wasi_snapshot_preview1;
        const writeFd = wasi.fd_write;
        // jq reports compile errors on stderr; keep them here instead of the Emscripten console.
        wasi.fd_write = (fd, iovs, count, written) => {
          if (fd !== 2) return writeFd(fd, iovs, count, written);
          const view = memory();
          let total = 0;
          for (let i = 0; i < count; i++) {
            const ptr = view.getUint32(iovs + i * 8, true);
            const len = view.getUint32(iovs + i * 8 + 4, true);
            if (stderr.join('').length < STDERR_LIMIT) {
              stderr.push(Buffer.from(exports!.memory.buffer, ptr, len).toString('utf8'));
            }
            total += len;
          }
          view.setUint32(written, total, true);
          return 0;
        };
        // An empty environment: `env` and `$ENV` must not expose the host's variables.
        wasi.environ_sizes_get = (countPtr, sizePtr) => {
          memory().setUint32(countPtr, 0, true);
          memory().setUint32(sizePtr, 0, true);
          return 0;
        };
        wasi.environ_get = () => 0;
        WebAssembly.instantiate(module, imports as unknown as WebAssembly.Imports).then((instance) => {
          exports = instance.exports as Exports;
          receive(instance, module);
        });
        return {};
      },
    });
    return new JqRuntime(exports!, stderr, memoryLimit);
  }

  /** Why the instance stopped working after an evaluation threw (a wasm trap or abort). */
  failure(error: unknown): string {
    if (this.memoryLimit.reached) return `out of memory (the limit is ${this.memoryLimit.bytes / 1024 / 1024} MB)`;
    return error instanceof Error ? error.message : String(error);
  }

  /** How many compiled programs the instance holds. */
  get cachedPrograms(): number {
    return this.programs.size;
  }

  compile(expression: string): JqCompileOutcome {
    const program = this.program(expression);
    return 'error' in program ? { kind: 'compile-error', message: program.error } : { kind: 'compiled' };
  }

  /** Runs `expression` on the JSON text in `input` and reports its first output. */
  evaluate(expression: string, input: Uint8Array): JqOutcome {
    const program = this.program(expression);
    if ('error' in program) return { kind: 'compile-error', message: program.error };
    const top = this.call('emscripten_stack_get_current');
    try {
      const value = this.alloc();
      const text = this.copyIn(input);
      this.libjq('jv_parse_sized', value, text, input.length);
      this.libjq('jv_mem_free', text);
      const kind = this.kind(value);
      if (kind === 'invalid') {
        const message = this.alloc();
        this.libjq('jv_invalid_get_msg', message, value);
        return { kind: 'reply-not-json', message: this.text(message).replace(/ \(while parsing '[\s\S]*$/, '') };
      }
      if (kind !== 'object') {
        this.free(value);
        return { kind: 'reply-not-object', type: kind };
      }
      this.libjq('jq_start', program.state, value, 0);
      const output = this.alloc();
      this.libjq('jq_next', output, program.state);
      return this.outcome(output, program.state);
    } finally {
      this.call('_emscripten_stack_restore', top);
    }
  }

  private outcome(output: number, state: number): JqOutcome {
    const kind = this.kind(output);
    if (kind === 'number') {
      const value = this.libjq('jv_number_value', this.copy(output, false));
      this.free(output);
      return { kind: 'number', value };
    }
    if (kind !== 'invalid') return { kind: 'not-a-number', type: kind, json: this.dump(output) };
    if (!this.libjq('jv_invalid_has_msg', this.copy(output, true))) {
      return this.libjq('jq_halted', state) ? { kind: 'halted' } : { kind: 'no-output' };
    }
    const message = this.alloc();
    this.libjq('jv_invalid_get_msg', message, output);
    return { kind: 'runtime-error', message: this.kind(message) === 'string' ? this.text(message) : this.dump(message) };
  }

  private program(expression: string): { state: number } | { error: string } {
    const cached = this.programs.get(expression);
    if (cached) {
      this.programs.delete(expression);
      this.programs.set(expression, cached);
      return cached;
    }
    const state = this.libjq('jq_init');
    this.stderr.length = 0;
    const source = this.copyIn(Buffer.from(expression, 'utf8'));
    const compiled = this.libjq('jq_compile', state, source);
    this.libjq('jv_mem_free', source);
    let program: { state: number } | { error: string } = { state };
    if (!compiled) {
      this.teardown(state);
      program = { error: compileErrorMessage(this.stderr.join('')) };
    }
    this.programs.set(expression, program);
    if (this.programs.size > PROGRAM_CACHE_SIZE) {
      const [oldest, evicted] = this.programs.entries().next().value!;
      this.programs.delete(oldest);
      if ('state' in evicted) this.teardown(evicted.state);
    }
    return program;
  }

  private teardown(state: number): void {
    const top = this.call('emscripten_stack_get_current');
    const slot = this.call('_emscripten_stack_alloc', 4);
    new DataView(this.exports.memory.buffer).setUint32(slot, state, true);
    this.libjq('jq_teardown', slot);
    this.call('_emscripten_stack_restore', top);
  }

  private libjq(fn: LibjqFunction, ...args: number[]): number {
    return this.exports[exportName(fn)](...args);
  }

  private call(name: string, ...args: number[]): number {
    return this.exports[name](...args);
  }

  private alloc(): number {
    return this.call('_emscripten_stack_alloc', JV_SIZE);
  }

  /** A NUL-terminated copy of `bytes` in jq's heap; the caller frees it with jv_mem_free. */
  private copyIn(bytes: Uint8Array): number {
    const ptr = this.libjq('jv_mem_alloc', bytes.length + 1);
    const heap = new Uint8Array(this.exports.memory.buffer);
    heap.set(bytes, ptr);
    heap[ptr + bytes.length] = 0;
    return ptr;
  }

  /** A stack copy of the jv at `ptr`, with its own reference if `retain` (for consuming calls). */
  private copy(ptr: number, retain: boolean): number {
    const target = this.alloc();
    if (retain) this.libjq('jv_copy', target, ptr);
    else new Uint8Array(this.exports.memory.buffer).copyWithin(target, ptr, ptr + JV_SIZE);
    return target;
  }

  private kind(ptr: number): JqType | 'invalid' {
    return JV_KINDS[this.libjq('jv_get_kind', this.copy(ptr, false)) & 0xf];
  }

  private free(ptr: number): void {
    this.libjq('jv_free', ptr);
  }

  /** The string jv at `ptr`, consumed. */
  private text(ptr: number): string {
    const chars = this.libjq('jv_string_value', this.copy(ptr, false));
    const length = this.libjq('jv_string_length_bytes', this.copy(ptr, true));
    const text = Buffer.from(this.exports.memory.buffer, chars, length).toString('utf8');
    this.free(ptr);
    return text;
  }

  /** Compact JSON of the jv at `ptr`, truncated, consumed. */
  private dump(ptr: number): string {
    const buffer = this.call('_emscripten_stack_alloc', DUMP_LIMIT);
    this.libjq('jv_dump_string_trunc', ptr, buffer, DUMP_LIMIT);
    const heap = new Uint8Array(this.exports.memory.buffer);
    const end = heap.indexOf(0, buffer);
    return Buffer.from(heap.subarray(buffer, end)).toString('utf8');
  }
}

/** jq's own compile diagnostics, without the echoed program and the error count. */
function compileErrorMessage(stderr: string): string {
  const errors = stderr
    .split('\n')
    .filter((line) => line.startsWith('jq: error: '))
    .map((line) => line.slice('jq: error: '.length).replace(' (Unix shell quoting issues?)', '').replace(/:$/, ''));
  return errors.length ? errors.join('; ') : stderr.trim() || 'the expression does not compile';
}
