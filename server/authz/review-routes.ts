/**
 * Serves the four access reviews at their reference paths until the resource API has a slot
 * for create-only resources that store nothing: POST of a review in JSON, YAML or protobuf,
 * answered 201 with its status in the negotiated encoding. The chain has already authorized the POST itself (`create` on the review
 * resource, which system:basic-user grants for the self reviews).
 */
import type { Express, Request, Response } from 'express';
import type { KubeObject } from '../../storage/objects/types';
import { readBody } from '../http/body';
import '../http/request-context';
import { requestBodyFormat, serializersFor } from '../codec/media-type';
import { decodeObject } from '../codec/protobuf-envelope';
import { writeObject } from '../codec/respond';
import { schemaData } from '../schema/definitions';
import { badRequest } from '../status/catalogue';
import { decodeValue, parseBody } from '../validation/decode';
import { statusErrorFrom } from '../status/from-error';
import { writeStatus } from '../status/write';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview, AUTHORIZATION_GROUP } from './access-reviews';
import type { Authorizer } from './types';

const KINDS: Readonly<Record<string, string>> = {
  subjectaccessreviews: 'SubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
};

/** The body in any of the API's encodings, typed against the review's schema in the addressed version. */
async function decodeReview(req: Request, version: string, kind: string): Promise<KubeObject> {
  const format = requestBodyFormat({ contentType: req.headers['content-type'], serializers: serializersFor({ protobuf: true, cbor: false }) });
  const body = await readBody(req);
  const value = format === 'protobuf' ? decodeObject(body) : parseBody({ body, format: format === 'yaml' ? 'yaml' : 'json', expectedKind: kind, findDuplicates: false }).value;
  const { object } = decodeValue(
    { definitions: schemaData().definitions, definition: `io.k8s.api.authorization.${version}.${kind}`, expectedKind: kind, servedVersion: version, fieldValidation: 'Ignore', wholeBody: true },
    value,
    [],
  );
  return { ...object, apiVersion: `${AUTHORIZATION_GROUP}/${version}`, kind, metadata: object.metadata ?? {} };
}

export function mountAccessReviews(app: Express, options: { readonly authorizer: Authorizer }): void {
  const { authorizer } = options;
  const answer = (run: (review: KubeObject, req: Request) => Promise<KubeObject>, resource: string) => async (req: Request, res: Response) => {
    try {
      const version = String(req.params.version);
      if (version !== 'v1' && version !== 'v1beta1') throw badRequest(`${AUTHORIZATION_GROUP}/${version} is not served`);
      const review = await decodeReview(req, version, KINDS[resource]);
      const answer = await run(review, req);
      await writeObject({ req, res, endpoint: { resource: { group: AUTHORIZATION_GROUP, resource }, protobuf: true, table: false }, code: 201, object: answer });
    } catch (error) {
      writeStatus(res, statusErrorFrom(error));
    }
  };
  const base = `/apis/${AUTHORIZATION_GROUP}/:version`;
  app.post(`${base}/subjectaccessreviews`, answer((review) => subjectAccessReview(review, authorizer), 'subjectaccessreviews'));
  app.post(`${base}/selfsubjectaccessreviews`, answer((review, req) => selfSubjectAccessReview(review, req.user, authorizer), 'selfsubjectaccessreviews'));
  app.post(`${base}/selfsubjectrulesreviews`, answer((review, req) => selfSubjectRulesReview(review, req.user, authorizer), 'selfsubjectrulesreviews'));
  app.post(
    `${base}/namespaces/:namespace/localsubjectaccessreviews`,
    answer((review, req) => localSubjectAccessReview(review, String(req.params.namespace), authorizer), 'localsubjectaccessreviews'),
  );
}
