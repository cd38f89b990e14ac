/** The reference's Forbidden message for a denied request. */
import { goQuote } from '../../api/go-quote';
import { forbidden } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import type { Attributes } from './types';

export function forbiddenError(attributes: Attributes, reason: string): StatusError {
  return forbidden(
    { group: attributes.apiGroup, resource: attributes.resource },
    attributes.name,
    forbiddenMessage(attributes, reason),
  );
}

/** `User "u" cannot list resource "pods" in API group "" in the namespace "ns"[: reason]`. */
export function forbiddenMessage(attributes: Attributes, reason: string): string {
  const { user, verb } = attributes;
  let message: string;
  if (!attributes.isResourceRequest) {
    message = `User ${goQuote(user.name)} cannot ${verb} path ${goQuote(attributes.path)}`;
  } else {
    const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
    const subject = `User ${goQuote(user.name)} cannot ${verb} resource ${goQuote(resource)} in API group ${goQuote(attributes.apiGroup)}`;
    message = attributes.namespace
      ? `${subject} in the namespace ${goQuote(attributes.namespace)}`
      : `${subject} at the cluster scope`;
  }
  // The reference escapes HTML in the part it builds from the request.
  message = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return reason ? `${message}: ${reason}` : message;
}
