/** Reading the body of a review or TokenRequest in any wire format clients send (kubectl sends protobuf for built-in kinds). */
import type { Request } from 'express';
import { decodeCborBody } from '../../codec/cbor';
import { requestBodyFormat, serializersFor, type Format } from '../../codec/media-type';
import { decodeObject } from '../../codec/protobuf-envelope';
import { readBody } from '../../request/body';
import { parseBody } from '../../validation/decode';

export async function readReviewBody(req: Request, expectedKind: string): Promise<unknown> {
  let format: Format;
  try {
    format = requestBodyFormat({
      contentType: req.headers['content-type'],
      serializers: serializersFor({ protobuf: true, cbor: false }),
    });
  } catch (error) {
    req.resume();
    throw error;
  }
  const body = await readBody(req);
  if (format === 'protobuf') return decodeObject(body);
  if (format === 'cbor') return decodeCborBody(body);
  return parseBody({ body, format, expectedKind, findDuplicates: false }).value;
}
