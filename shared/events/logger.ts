// The functions' logs: pino JSON, with fields that could carry credentials redacted.
import { pino, type DestinationStream, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'password',
  '*.password',
  'token',
  '*.token',
  'apikey',
  '*.apikey',
  '*.stringData',
  '*.data.data',
];

export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '****' } }, destination);
}
