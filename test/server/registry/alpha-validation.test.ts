/**
 * Validation of alpha kinds (DeviceTaintRule, resource.k8s.io/v1alpha3; PodCertificateRequest,
 * certificates.k8s.io/v1alpha1, with keys of each type and proofs of possession made by
 * node:crypto) as the reference's: a list of writes sent in order to a server with every alpha
 * and beta API on, each answered with the code, reason and causes kube-apiserver 1.34.4 gave it
 * (fixtures/alpha-validation-answers.json).
 */
import { startServer, type TestServer } from '../../helpers/server';
import recorded from './fixtures/alpha-validation-answers.json';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    flags: ['--runtime-config=api/all=true', '--feature-gates=AllAlpha=true,AllBeta=true', '--controllers='],
  });
});
afterAll(async () => {
  await server?.stop();
});

// In order: later writes change objects earlier ones made.
it.each(recorded.steps.map((step, index) => [index, step.method, step.path, step] as const))(
  'step %i: %s %s answers as the reference',
  async (_index, method, path, { contentType, body, code, reason, causes }) => {
    const answer = await server.request(method, path, {
      body: JSON.stringify(body),
      headers: { 'content-type': contentType },
    });
    const status = answer.json<{ reason?: string; details?: { causes?: Record<string, string>[] } }>();
    expect([answer.status, status.reason ?? null]).toEqual([code, reason]);
    expect((status.details?.causes ?? []).map((cause) => [cause.field, cause.reason, cause.message])).toEqual(causes);
  },
);
