/**
 * What strict decoding of a patch document reports, as kube-apiserver 1.34.4 reported it
 * (fixtures/patch-strict-decoding.json, recorded from it with dryRun=All against the ConfigMap in
 * the fixture): a JSON Patch operation's members other than op, path, from and value, and its
 * repeated members, as the "json patch" decoding's unknown and duplicate fields; a merge or
 * strategic patch's repeated keys as duplicate fields; each ahead of the patched object's own
 * unknown fields, as a 422 under Strict and as warnings under Warn, none under Ignore. A patch that
 * fails to apply fails so before any of them. The recorded 422s print the patched object (its
 * uid and times were the reference's), so only the strict decoding error that ends them is compared,
 * and, where recorded, the patched object with those replaced by placeholders.
 *
 * A key repeated inside an operation's value is the "json patch" decoding's duplicate, and again
 * a duplicate of the patched object at its place there, unless a later operation went into the
 * value (the library then decoded it, and the last of the key won) or tested it; a copy or move
 * keeps it repeated, and the 422 quotes it so.
 */
import { join } from 'node:path';
import { replayRecordedPatches } from '../../helpers/recorded-patches';
import { normalizedQuote } from './patch-strict-decoding-quote';

interface Case {
  readonly name: string;
  readonly fieldValidation: string;
  readonly contentType: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  /** The end of a strict decoding 422's message. */
  readonly strictError?: string;
  /** The whole message of any other refusal. */
  readonly message?: string;
  /** The Warning header, as one line. */
  readonly warning: string;
  /** The patched object a 422 quotes, normalized (patch-strict-decoding-quote.ts). */
  readonly patched?: string;
}

replayRecordedPatches<{ metadata: { name: string }; data: Record<string, string> }, Case>({
  fixture: join(__dirname, 'fixtures', 'patch-strict-decoding.json'),
  collection: '/api/v1/namespaces/default/configmaps',
  // No user agent, as the recorder sent none: the manager the quoted object names is "unknown".
  createHeaders: { 'user-agent': '' },
  replay: async (c, target) => {
    const response = await target.patch({
      suffix: `?dryRun=All&fieldValidation=${c.fieldValidation}`,
      contentType: c.contentType,
      body: c.body,
    });
    const answer = (await response.json()) as { reason?: string; message?: string };
    const message = answer.message ?? '';
    const strictAt = message.indexOf('strict decoding error: ');
    expect({
      status: response.status,
      reason: answer.reason ?? '',
      ...(c.strictError !== undefined
        ? { strictError: strictAt >= 0 ? message.slice(strictAt) : message }
        : { message }),
      warning: response.headers.get('warning') ?? '',
      ...(c.patched !== undefined ? { patched: normalizedQuote(message) } : {}),
    }).toEqual({
      status: c.status,
      reason: c.reason,
      ...(c.strictError !== undefined ? { strictError: c.strictError } : { message: c.message }),
      warning: c.warning,
      ...(c.patched !== undefined ? { patched: c.patched } : {}),
    });
  },
});
