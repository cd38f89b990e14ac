/**
 * Who owns what after applies through /status and to the main resource of each kind with a
 * status subresource, as kube-apiserver 1.34.4 recorded it (fixtures/recorded-reset-fields.json):
 * a status apply owns all it sends but its status strategy's reset fields (spec for most kinds;
 * a Deployment's labels too; all metadata of a VolumeAttachment), and its conflicts are counted
 * over the same fields; a main apply owns nothing of the status it sends. Merge patches through
 * either endpoint are recorded by the same rule, and a CSR's and a custom resource's status
 * applies by their own strategies' (a CSR's conditions are reset; a custom resource's spec only).
 * A PodCertificateRequest's main strategy resets nothing (fixtures/recorded-pcr-reset-fields.json).
 */
import { join } from 'node:path';
import { PCR_FLAGS } from '../registry/pod-certificate-request-updates';
import { replayManagedFieldsSteps } from './recorded-managed-fields-steps';

const replay = (fixture: string, flags: readonly string[]) =>
  replayManagedFieldsSteps(join(__dirname, 'fixtures', fixture), flags);

describe('kinds with a status subresource', () => {
  // No service-account controller runs here (nor did in the recording): pods need no account.
  replay('recorded-reset-fields.json', ['--disable-admission-plugins', 'ServiceAccount']);
});

describe('PodCertificateRequests, whose main strategy resets nothing', () => {
  // The creator owns the status it sends, and a main apply of that status conflicts with it.
  replay('recorded-pcr-reset-fields.json', PCR_FLAGS);
});
