/**
 * What the reference's clients make of an HTTP answer that is not a success and carries no
 * Status: its NewGenericServerResponse, a reason and a text for the code, the server's own text
 * kept where the code says it explains itself (403, 406, 415) or where nothing else would
 * (a 5xx). Used where capstan is the client: a webhook's answer, a kubelet's.
 */
import { goQuote } from '../../api/go-quote';

const BY_CODE: Readonly<Record<number, readonly [reason: string, message: string]>> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: [
    'Timeout',
    'the server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

export function genericServerResponse(
  code: number,
  method: string,
  serverMessage: string,
): { readonly reason: string; readonly message: string } {
  if (code === 409)
    return { reason: method === 'POST' ? 'AlreadyExists' : 'Conflict', message: 'the server reported a conflict' };
  if (code === 403) return { reason: 'Forbidden', message: serverMessage };
  if (code === 406)
    return {
      reason: 'NotAcceptable',
      message:
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage,
    };
  if (code === 415) return { reason: 'UnsupportedMediaType', message: serverMessage };
  const known = BY_CODE[code];
  if (known !== undefined) return { reason: known[0], message: known[1] };
  if (code >= 500)
    return {
      reason: 'InternalError',
      message: `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`,
    };
  return {
    reason: '',
    message: `the server responded with the status code ${code} but did not return more information`,
  };
}
