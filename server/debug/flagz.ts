/**
 * `/flagz` with ComponentFlagz on (alpha, off by default): every flag and its value, sorted by
 * name, under the reference's banner. As the reference, the page is made once, on the first
 * request that takes it, so its delimiter stays the same for the server's life.
 */
import type { RequestHandler } from 'express';
import { randomDelimiter, sendZpage, zpageBanner } from './zpage';

export const FLAGZ_PATH = '/flagz';

export function flagzHandler(componentName: string, flags: Readonly<Record<string, string>>): RequestHandler {
  let page: string | undefined;
  const render = () => {
    const delimiter = randomDelimiter();
    const lines = Object.keys(flags)
      .sort()
      .map((name) => `${name}${delimiter}${flags[name]}\n`);
    return `${zpageBanner(`${componentName} flags`)}\n${lines.join('')}`;
  };
  return (req, res, next) => {
    if (req.path !== FLAGZ_PATH) return next();
    sendZpage(req, res, () => (page ??= render()));
  };
}
