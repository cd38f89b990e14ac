/**
 * Option bodies (DeleteOptions on DELETE) arrive in the client's request encoding: client-go's
 * typed clients send them as protobuf or CBOR when that is their content type. Readers of these
 * small bodies take JSON, so the other encodings are turned into JSON text here.
 */
import type { IncomingMessage } from 'node:http';
import { decodeCborBody } from './cbor';
import { parseMediaType, PROTOBUF_MEDIA_TYPE, CBOR_MEDIA_TYPE } from './media-type';
import { decodeObject } from './protobuf-envelope';
import type { RepresentationSettings } from './representation-settings';

export function optionsBodyAsJson(options: {
  req: IncomingMessage;
  body: Buffer;
  settings?: RepresentationSettings;
}): Buffer {
  const { req, body } = options;
  if (body.length === 0) return body;
  const header = req.headers['content-type'];
  const mediaType = header === undefined ? undefined : parseMediaType(header);
  const type = mediaType === undefined ? '' : `${mediaType.type}/${mediaType.subtype}`;
  if (type === PROTOBUF_MEDIA_TYPE) return Buffer.from(JSON.stringify(decodeObject(body)));
  if (type === CBOR_MEDIA_TYPE && options.settings?.cbor) return Buffer.from(JSON.stringify(decodeCborBody(body)));
  return body;
}
