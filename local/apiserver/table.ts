// Server-side printing: the Table that `kubectl get` asks for, from a resource's printer columns.
import { JSONPath } from 'jsonpath-plus';
import type { PrinterColumn } from '../../shared/kube/crd-schema.ts';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; creationTimestamp?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A column computed in code, for the built-in kinds whose columns are not simple paths. */
export interface ComputedColumn extends Omit<PrinterColumn, 'jsonPath'> {
  value: (object: KubeObject, now: Date) => string | number | boolean | null;
}

export type Column = PrinterColumn | ComputedColumn;

export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** Like apimachinery's duration.HumanDuration: "45s", "3m20s", "5h10m", "3d4h", "2y10d". */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 ? `${minutes}m${seconds % 60}s` : `${minutes}m`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 ? `${hours}h${minutes % 60}m` : `${hours}h`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 ? `${Math.floor(hours / 24)}d${hours % 24}h` : `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 ? `${Math.floor(days / 365)}y${days % 365}d` : `${Math.floor(days / 365)}y`;
  return `${Math.floor(days / 365)}y`;
}

/** The first value a Kubernetes JSONPath (`.status.conditions[?(@.type=="Ready")].status`) finds. */
export function firstAt(object: unknown, path: string): unknown {
  const [value] = JSONPath({ path: `$${path.startsWith('.') || path.startsWith('[') ? '' : '.'}${path}`, json: object as object, wrap: true }) as unknown[];
  return value;
}

function cell(column: Column, object: KubeObject, now: Date): unknown {
  if ('value' in column) return column.value(object, now);
  const value = firstAt(object, column.jsonPath);
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : humanDuration(now.getTime() - Date.parse(value));
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

export function columnDefinitions(columns: Column[]): ColumnDefinition[] {
  return [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    ...columns.map((column) => ({
      name: column.name,
      type: column.type,
      format: column.format ?? '',
      description: column.description ?? ('jsonPath' in column ? `Custom resource definition column (in JSONPath format): ${column.jsonPath}` : column.name),
      priority: column.priority ?? 0,
    })),
  ];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function toTable(objects: KubeObject[], columns: Column[], resourceVersion: string, include: IncludeObject, now = new Date()) {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: columnDefinitions(columns),
    rows: objects.map((object) => ({
      cells: [object.metadata.name ?? '', ...columns.map((column) => cell(column, object, now))],
      ...(include === 'None'
        ? {}
        : {
            object:
              include === 'Object'
                ? object
                : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
          }),
    })),
  };
}
