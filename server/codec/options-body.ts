/**
 * Option bodies (DeleteOptions on DELETE) arrive in the client's request encoding: client-go's
 * typed clients send them as protobuf or CBOR when that is their content type, and YAML is
 * accepted too. Readers of these small bodies take JSON, so the other encodings are turned into
 * JSON text here. The reference reads them with its meta codecs: any other `Content-Type` is
 * its 415, naming those codecs' types.
 */
import type { IncomingMessage } from 'node:http';
import { decodeCborBody } from './cbor';
import { requestBodyFormat, serializersFor } from './media-type';
import { decodeObject } from './protobuf-envelope';
import type { RepresentationSettings } from './representation-settings';
import { GoYamlConversionError, readGoYamlText } from '../validation/go-yaml';
import { badRequest } from '../status/catalogue';

export function optionsBodyAsJson(options: {
  req: IncomingMessage;
  body: Buffer;
  settings?: RepresentationSettings;
}): Buffer {
  const { req, body } = options;
  if (body.length === 0) return body;
  const format = requestBodyFormat({
    contentType: req.headers['content-type'],
    serializers: serializersFor({ protobuf: true, cbor: options.settings?.cbor ?? false }),
  });
  switch (format) {
    case 'json':
      return body;
    case 'yaml':
      return Buffer.from(JSON.stringify(yamlValue(body)));
    case 'protobuf':
      return Buffer.from(JSON.stringify(decodeObject(body)));
    case 'cbor':
      return Buffer.from(JSON.stringify(decodeCborBody(body)));
  }
}

/** The YAML as the reference's YAML serializer turns it into JSON; its refusal is a 400 here (the reference's 500). */
function yamlValue(body: Buffer): unknown {
  try {
    return readGoYamlText(body.toString('utf8')).value;
  } catch (error) {
    if (error instanceof GoYamlConversionError) throw badRequest(`error converting YAML to JSON: ${error.message}`);
    throw error;
  }
}
