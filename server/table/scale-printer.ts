/**
 * The table of a built-in kind's Scale (GET .../deployments/x/scale as a Table, kubectl get
 * --subresource=scale): the reference's scale endpoints convert with the parent's table
 * generator, which prints a Scale with its own printer, not the parent's.
 */
import { AGE_COLUMN, documentedColumn, integer, objectMetaColumn, record } from './columns';
import { ageOf } from './human-duration';
import type { Printer } from './printer';

export const SCALE_PRINTER: Printer = {
  columns: [
    // The reference's Name column of a Scale carries no `name` format.
    objectMetaColumn('Name', 'string', 'name'),
    documentedColumn('Desired', 'integer', { definition: 'io.k8s.api.autoscaling.v1.ScaleSpec', field: 'replicas' }),
    documentedColumn('Available', 'integer', {
      definition: 'io.k8s.api.autoscaling.v1.ScaleStatus',
      field: 'replicas',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [
      object.metadata.name,
      integer(record(object.spec).replicas),
      integer(record(object.status).replicas),
      ageOf(object, now),
    ],
  }),
};
