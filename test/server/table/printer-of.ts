import { DEFAULT_PRINTER, type Printer } from '../../../server/table/printer';
import { BUILTIN_TYPES } from '../../../server/builtin-types';

/** The printer a built-in kind is defined with, as the table of its answers uses it. */
export function printerFor({ group, resource }: { group: string; resource: string }): Printer {
  const type = BUILTIN_TYPES.find((kind) => kind.group === group && kind.resource === resource);
  if (type === undefined) throw new Error(`no built-in kind ${resource}.${group}`);
  return type.printer ?? DEFAULT_PRINTER;
}
