/** The reference's Forbidden message for a denied request. */
import { forbidden } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import type { Attributes } from './types';

export function forbiddenError(attributes: Attributes, reason: string): StatusError {
  const { request, user } = attributes;
  let message: string;
  if (!request.isResourceRequest) {
    message = `User ${JSON.stringify(user.name)} cannot ${request.verb} path ${JSON.stringify(request.path)}`;
  } else {
    const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
    const subject = `User ${JSON.stringify(user.name)} cannot ${request.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(request.apiGroup)}`;
    message = request.namespace
      ? `${subject} in the namespace ${JSON.stringify(request.namespace)}`
      : `${subject} at the cluster scope`;
  }
  // The reference escapes HTML in the part it builds from the request.
  message = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (reason) message = `${message}: ${reason}`;
  return forbidden({ group: request.apiGroup, resource: request.resource }, request.name, message);
}
