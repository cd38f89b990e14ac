/**
 * apimachinery's Semantic.DeepEqual of v1 values taken as their internal Go structs; the updates
 * the reference accepts or refuses because of it are replayed in semantic-update.test.ts.
 */
import { semanticEqual } from '../../../server/validation/semantic-equality';

test('nil and empty lists and maps are equal, as Semantic.DeepEqual takes them, and pointers are not', () => {
  const spec = { containers: [{ name: 'c', image: 'i' }] };
  const emptied = { containers: [{ name: 'c', image: 'i', args: [] }], nodeSelector: {} };
  expect(semanticEqual('core.PodSpec', spec, emptied)).toBe(true);
  expect(semanticEqual('core.PodSpec', spec, { ...emptied, hostAliases: [{ ip: '::1' }] })).toBe(false);
  expect(semanticEqual('core.PodSpec', spec, { ...spec, dnsConfig: {} })).toBe(false);
});

test('a missing value struct or scalar is its zero, a missing pointer is not', () => {
  // core.Container's Resources is a value struct, its SecurityContext a pointer.
  const container = { name: 'c', image: 'i' };
  expect(semanticEqual('core.Container', container, { ...container, resources: {} })).toBe(true);
  expect(semanticEqual('core.Container', container, { ...container, securityContext: {} })).toBe(false);
  expect(semanticEqual('core.Container', container, { ...container, workingDir: '', tty: false })).toBe(true);
  expect(semanticEqual('batch.JobSpec', {}, { backoffLimit: 0 })).toBe(false);
  expect(semanticEqual('*batch.SuccessPolicy', {}, { rules: [] })).toBe(true);
  expect(semanticEqual('*batch.SuccessPolicy', null, {})).toBe(false);
});

test('quantities compare by amount, times by instant, int-or-strings by type and value', () => {
  const requests = (storage: string) => ({ resources: { requests: { storage } } });
  expect(semanticEqual('core.PersistentVolumeClaimSpec', requests('1Gi'), requests('1073741824'))).toBe(true);
  expect(semanticEqual('core.PersistentVolumeClaimSpec', requests('0.5'), requests('500m'))).toBe(true);
  expect(semanticEqual('core.PersistentVolumeClaimSpec', requests('1Gi'), requests('1G'))).toBe(false);
  expect(semanticEqual('Time', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00+01:00')).toBe(true);
  expect(semanticEqual('Time', '2026-01-01T00:00:00Z', undefined)).toBe(false);
  expect(semanticEqual('IntOrString', 80, '80')).toBe(false);
  expect(semanticEqual('IntOrString', undefined, 0)).toBe(true);
});
