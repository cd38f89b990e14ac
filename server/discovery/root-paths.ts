/**
 * `/` (and `/index.html`): the paths the server lists, as the reference's index answers them to
 * any method: `{"paths": [...]}`, sorted, each once, indented by two spaces as Go's
 * MarshalIndent writes it. Each part of the server names its own paths (the API groups and
 * versions, the health checks, OpenAPI, metrics, the service-account issuer's discovery);
 * what the reference keeps unlisted (`/debug/pprof`, a group's trailing-slash form) is not here.
 */
import type { RequestHandler } from 'express';
import { goJSONEscaped } from '../../api/go-quote';

export const ROOT_PATHS = ['/', '/index.html'];

export function rootPathsHandler(listedPaths: () => readonly string[]): RequestHandler {
  return (_req, res) => {
    const paths = [...new Set(listedPaths())].sort();
    res.status(200);
    res.setHeader('Content-Type', 'application/json');
    res.end(goJSONEscaped(JSON.stringify({ paths }, null, 2)));
  };
}
