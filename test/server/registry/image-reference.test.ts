/**
 * Image references as github.com/distribution/reference v0.6.0 (the reference's
 * ParseImageName, with sha256 and sha512 linked in) parsed them (fixtures/image-references.json:
 * each image with the tag and digest it found, or neither where it refused the image): a sample
 * of generated names with domains, ports, separators, tags, digests of known and unknown
 * algorithms, uppercase and overlong names, and the images the pull-policy recording used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { parseImageReference } from '../../../server/registry/defaults/image-reference';
import { created, typeOf } from './gated-fields/write-path';

const recorded: readonly { readonly image: string; readonly tag?: string; readonly digest?: string }[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'image-references.json'), 'utf8'),
);

test.each(recorded.map((entry) => [JSON.stringify(entry.image), entry] as const))('%s', (_, entry) => {
  const expected = entry.tag === undefined ? undefined : { tag: entry.tag, digest: entry.digest };
  expect(parseImageReference(entry.image)).toEqual(expected);
});

/**
 * A container's pull policy as the reference defaulted it in a PodTemplate
 * (fixtures/container-pull-policies.json: per image, the policy, or the refusal of an empty image).
 */
const pullPolicies: Readonly<Record<string, string | { readonly code: number; readonly message: string }>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'container-pull-policies.json'), 'utf8'),
);
const podTemplates = typeOf('', 'podtemplates');

test.each(Object.entries(pullPolicies))('a container of image %j', (image, expected) => {
  const sent = {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 't', namespace: 'default' },
    template: { spec: { containers: [{ name: 'c', image }] } },
  } as KubeObject;
  const { object, errors } = created(podTemplates, sent, {});
  if (typeof expected === 'string') {
    expect(errors).toEqual([]);
    expect(
      (object.template as { spec: { containers: { imagePullPolicy: string }[] } }).spec.containers[0],
    ).toMatchObject({ imagePullPolicy: expected });
  } else expect(errors).toEqual([expected.message.slice(expected.message.indexOf(': ') + 2)]);
});
