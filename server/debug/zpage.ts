/**
 * What the reference's z-pages (`/flagz`, `/statusz`, k8s.io/component-base/zpages) share: they
 * answer only a client that accepts `text/plain` (or a wildcard over it) with no parameter but
 * `charset=utf-8`, else 406 with Go's plain `http.Error`; a no `Accept` header is no acceptance.
 * Each page opens with a banner saying it is not for machines, and separates names from values
 * by a delimiter drawn at random, so that nobody comes to parse it.
 */
import type { Request, Response } from 'express';
import { parseAccept } from '../codec/media-type';

const DELIMITERS = [':', ': ', '=', ' '];

function acceptsPlainText(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return false;
  return parseAccept(header).some((range) => {
    if (!(range.type === 'text' || range.type === '*') || !(range.subtype === 'plain' || range.subtype === '*'))
      return false;
    const names = Object.keys(range.parameters);
    return names.length === 0 || (names.length === 1 && range.parameters.charset?.toLowerCase() === 'utf-8');
  });
}

/** The banner that opens the page of `title` ("kube-apiserver flags", "apiserver statusz"). */
export function zpageBanner(title: string): string {
  return `\n${title}\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n`;
}

export function randomDelimiter(): string {
  return DELIMITERS[Math.floor(Math.random() * DELIMITERS.length)];
}

/** Answers with `page()` as text, or 406 when the client does not take text. */
export function sendZpage(req: Request, res: Response, page: () => string): void {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  if (!acceptsPlainText(req.headers.accept)) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(406).end('media type not acceptable, must be: text/plain\n');
    return;
  }
  res.status(200).end(page());
}
