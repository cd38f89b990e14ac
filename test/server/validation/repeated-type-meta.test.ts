/**
 * A JSON body that repeats apiVersion or kind, answered as kube-apiserver 1.34.4 answered it
 * (asked on 2026-11-30): its type-meta reader decodes every coming of the key, so an earlier
 * value that is not a string is refused, whatever the field validation and whichever value
 * comes last.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();

const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Each request, and the reference's message for it (code 400, reason BadRequest). */
const RECORDED: [string, string, string, string][] = [
  [
    'POST',
    CONFIG_MAPS,
    '{"kind":5,"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a1"}}',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5,"kind":"ConfigMap"," ...)',
  ],
  [
    'POST',
    CONFIG_MAPS,
    '{"kind":"ConfigMap","apiVersion":5,"apiVersion":"v1","metadata":{"name":"a3"}}',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string ({"kind":"ConfigMap","apiVersio ...)',
  ],
  [
    'POST',
    CRDS,
    '{"kind":true,"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"x"}}',
    'the object provided is unrecognized (must be of type CustomResourceDefinition): couldn\'t get version/kind; json parse error: json: cannot unmarshal bool into Go struct field .kind of type string ({"kind":true,"kind":"CustomRes ...)',
  ],
];

describe.each(['Ignore', 'Warn', 'Strict'])('fieldValidation=%s', (validation) => {
  it.each(RECORDED)('refuses %s %s %s as the reference does', async (method, path, body, message) => {
    const answer = await server.request(method, `${path}?fieldValidation=${validation}&dryRun=All`, {
      body,
      headers: { 'content-type': 'application/json' },
    });
    const status = JSON.parse(answer.body) as { code: number; reason: string; message: string };
    expect({ code: status.code, reason: status.reason, message: status.message }).toEqual({
      code: 400,
      reason: 'BadRequest',
      message,
    });
  });
});
