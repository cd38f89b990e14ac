/**
 * Requests and responses made by Node's server with the app's Express prototypes from birth:
 * Express's methods work on them as on any, and Express has no prototype to change on arrival.
 */
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressMessageClasses } from '../../../server/http/express-messages';

test("a request and its response arrive with the app's prototypes, and Express's methods work on them", async () => {
  const app = express();
  const seen: { request?: object; response?: object; nodeMessages?: boolean } = {};
  app.use((req, res) => {
    // Express's own: header lookup, the app, JSON answers, res.locals.
    res.locals.greeting = 'hello';
    res.status(201).json({ header: req.get('x-test'), app: req.app === app, greeting: res.locals.greeting });
  });
  const server: Server = createServer({ ...expressMessageClasses(app) }, app);
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    seen.request = Object.getPrototypeOf(request) as object;
    seen.response = Object.getPrototypeOf(response) as object;
    seen.nodeMessages = request instanceof IncomingMessage && response instanceof ServerResponse;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'X-Test': 'yes' } });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ header: 'yes', app: true, greeting: 'hello' });
    expect(seen.nodeMessages).toBe(true);
    expect(seen.request).toBe(app.request);
    expect(seen.response).toBe(app.response);
  } finally {
    server.close();
  }
});
