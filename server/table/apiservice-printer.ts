/** The APIService table of `kubectl get apiservices`: Name, Service, Available, Age, as the aggregator prints it. */
import { ageOf } from './human-duration';
import { AGE_COLUMN, NAME_COLUMN, column, list, record, text } from './columns';
import type { Printer } from './printer';

/** `True`, or the status with its reason (`False (MissingEndpoints)`); `Unknown` before any check. */
function availability(status: unknown): string {
  const condition = list(record(status).conditions)
    .map(record)
    .find((candidate) => candidate.type === 'Available');
  if (condition === undefined) return 'Unknown';
  const conditionStatus = text(condition.status);
  const reason = text(condition.reason);
  return conditionStatus === 'True' || reason === '' ? conditionStatus : `${conditionStatus} (${reason})`;
}

export const apiServicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const service = record(object.spec).service;
    const served =
      service === undefined || service === null
        ? 'Local'
        : `${text(record(service).namespace)}/${text(record(service).name)}`;
    return { cells: [object.metadata.name, served, availability(object.status), ageOf(object, now)] };
  },
};
