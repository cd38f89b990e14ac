/** The media type of a request body, without parameters (`application/json; charset=utf-8` → `application/json`). */
import type { IncomingMessage } from 'node:http';

export function mediaTypeOf(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  return header.split(';')[0].trim().toLowerCase();
}

/** Body encodings accepted for full objects (POST, PUT), as the reference lists them. */
export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;

/** What we can decode today: protobuf comes with the codecs. */
export type ObjectBodyFormat = 'json' | 'yaml';

export function objectBodyFormat(mediaType: string): ObjectBodyFormat | undefined {
  // An absent Content-Type is read as JSON, as the reference's default serializer does.
  if (mediaType === '' || mediaType === 'application/json' || mediaType === '*/*') return 'json';
  if (mediaType === 'application/yaml' || mediaType === 'application/x-yaml' || mediaType === 'text/yaml') return 'yaml';
  return undefined;
}
