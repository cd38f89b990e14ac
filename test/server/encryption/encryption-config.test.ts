/**
 * `--encryption-provider-config` refusals, each text as the reference kube-apiserver 1.34
 * printed it for the same file (run by hand: `kube-apiserver --encryption-provider-config=F`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEncryptionConfiguration } from '../../../server/encryption/encryption-config';
import { buildTransformers } from '../../../server/encryption/encryption-providers';
import { encryptionConfiguration, IDENTITY } from '../../helpers/encryption-config';

const dir = mkdtempSync(join(tmpdir(), 'encryption-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const HEADER = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';
const KEY32 = Buffer.alloc(32, 7).toString('base64');

function refusal(path: string, reload = false): string {
  try {
    const config = loadEncryptionConfiguration(path, reload);
    buildTransformers(config, {
      record: () => undefined,
      kms: () => {
        throw new Error('no kms here');
      },
    });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('EncryptionConfiguration validation', () => {
  it('refuses every invalid entry at once, in the reference order and words', () => {
    const path = file(
      'many.yaml',
      `${HEADER}resources:
- resources: [secrets, "*.", Secrets, "*", "*.extensions", "*.events.k8s.io", "pods.*", secrets, serviceipallocations]
  providers:
  - aescbc:
      keys:
      - name: k1
        secret: c2hvcnQ=
      - name: ""
        secret: "!!"
  - {}
  - identity: {}
    aesgcm:
      keys: []
  - kms:
      name: "a:b"
      endpoint: "tcp://x"
      cachesize: 10
  - kms:
      apiVersion: v2
      name: "a:b"
      endpoint: "unix:///tmp/x.sock"
- resources: []
  providers: []
`,
    );
    const resources =
      '["secrets","*.","Secrets","*","*.extensions","*.events.k8s.io","pods.*","secrets","serviceipallocations"]';
    expect(refusal(path)).toBe(
      'error while parsing file: [' +
        [
          `resources[0].resources: Invalid value: ${resources}: the same resource cannot be specified multiple times`,
          `resources[0].resources: Invalid value: ${resources}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`,
          'resources[0].resources[2]: Invalid value: "Secrets": resource name should not contain capital letters',
          `resources[0].resources[3]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`,
          `resources[0].resources[4]: Invalid value: "*.extensions": 'extensions' group has been removed and cannot be used for encryption`,
          `resources[0].resources[5]: Invalid value: "*.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`,
          'resources[0].resources[6]: Invalid value: "pods.*": encrypting the same resource across groups is not supported',
          'resources[0].resources[8]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted',
          'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32]',
          'resources[0].providers[0].aescbc.keys[1].name: Required value: name is a mandatory field for a key',
          'resources[0].providers[0].aescbc.keys[1].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
          'resources[0].providers[1]: Invalid value: {"AESGCM":null,"AESCBC":null,"Secretbox":null,"Identity":null,"KMS":null}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
          'resources[0].providers[2]: Invalid value: {"AESGCM":{"Keys":[]},"AESCBC":null,"Secretbox":null,"Identity":{},"KMS":null}: more than one provider specified in a single element, should split into different list elements',
          'resources[0].providers[2].aesgcm.keys: Required value: at least one keys is required',
          'resources[0].providers[3].kms.endpoint: Invalid value: "tcp://x": unsupported scheme "tcp" for KMS provider, only unix is supported',
          `resources[0].providers[4].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain ':'`,
          'resources[0].providers[4].kms.name: Invalid value: "a:b": duplicate KMS provider name a:b, names must be unique',
          'resources[1].resources: Required value: at least one resources[1].resources is required',
          'resources[1].providers: Required value: at least one resources[1].providers is required',
        ].join(', ') +
        ']',
    );
  });

  it.each([
    [
      'an unknown version',
      'apiVersion: apiserver.config.k8s.io/v2\nkind: EncryptionConfiguration\nresources: []\n',
      (path: string) =>
        `error while parsing file: error decoding encryption provider configuration file "${path}": no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme "pkg/runtime/scheme.go:110"`,
    ],
    [
      'an unknown field',
      `${HEADER}resources:\n- resources: [secrets]\n  bogus: 1\n  providers: [{identity: {}}]\n`,
      (path: string) =>
        `error while parsing file: error decoding encryption provider configuration file "${path}": strict decoding error: unknown field "resources[0].bogus"`,
    ],
    [
      'an empty file',
      '',
      (path: string) =>
        `error while parsing file: error while loading file: encryption provider configuration file "${path}" is empty`,
    ],
    [
      'no resources',
      HEADER,
      () => 'error while parsing file: resources: Required value: at least one resources is required',
    ],
    [
      'a masked resource',
      encryptionConfiguration([
        { resources: ['*.apps'], providers: [IDENTITY] },
        { resources: ['deployments.apps'], providers: [IDENTITY] },
      ]),
      () => 'error while building transformers: resource "deployments.apps" is masked by earlier rule "*.apps"',
    ],
  ])('refuses %s', (name, text, expected) => {
    const path = file(`${name.replace(/ /g, '-')}.yaml`, text);
    expect(refusal(path)).toBe(expected(path));
  });

  it('names a missing file', () => {
    const path = join(dir, 'missing.yaml');
    expect(refusal(path)).toBe(
      `error while parsing file: error while loading file: error reading encryption provider configuration file "${path}": open ${path}: no such file or directory`,
    );
  });

  it('accepts JSON as well as YAML', () => {
    const path = file(
      'config.json',
      JSON.stringify({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'EncryptionConfiguration',
        resources: [{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'k', secret: KEY32 }] } }] }],
      }),
    );
    expect(loadEncryptionConfiguration(path, false).resources[0].providers[0].secretbox?.keys[0].name).toBe('k');
  });

  it('refuses a duplicate KMS v1 name only when reloading', () => {
    const path = file(
      'kms-v1.yaml',
      encryptionConfiguration([
        {
          resources: ['secrets'],
          providers: [
            { kms: { name: 'a', endpoint: 'unix:///a.sock' } },
            { kms: { name: 'a', endpoint: 'unix:///b.sock' } },
          ],
        },
      ]),
    );
    expect(loadEncryptionConfiguration(path, false).resources).toHaveLength(1);
    expect(refusal(path, true)).toBe(
      'error while parsing file: resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique',
    );
  });
});
