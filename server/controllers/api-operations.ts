/**
 * `ObjectOperations` for the server's own controllers, on the very functions the HTTP handlers
 * run (create steps, guarded update, two-phase delete), as the identity `system:apiserver`.
 */
import { ObjectError } from '../../storage/errors';
import type { KubeObject, ObjectStorage } from '../../storage/objects/types';
import type { UserInfo } from '../authn/types';
import { storeNewObject } from '../handlers/create';
import { deleteObject } from '../handlers/delete';
import { guardedWrite } from '../handlers/guarded-write';
import type { HandlerContext, HandlerScope } from '../handlers/scope';
import type { ResourceType } from '../registry/types';
import { StatusError } from '../status/status-error';
import type { ObjectOperations } from './operations';

export const APISERVER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:authenticated', 'system:masters'] };
const MANAGER = 'kube-apiserver';

function isNotFound(error: unknown): boolean {
  return (error instanceof ObjectError && error.reason === 'NotFound') || (error instanceof StatusError && error.status.code === 404);
}

function isAlreadyExists(error: unknown): boolean {
  return (error instanceof ObjectError && error.reason === 'AlreadyExists') || (error instanceof StatusError && error.status.reason === 'AlreadyExists');
}

export function apiOperations(options: { context: HandlerContext; storageFor: (type: ResourceType) => ObjectStorage }): ObjectOperations {
  const scopeOf = (type: ResourceType): HandlerScope => ({
    type,
    version: type.versions.find((served) => served.version === type.storageVersion) ?? type.versions[0],
    storage: options.storageFor(type),
    context: options.context,
  });
  return {
    registry: options.context.registry,
    storageFor: options.storageFor,
    async createObject(type, object) {
      try {
        await storeNewObject(scopeOf(type), { object, user: APISERVER_USER, manager: MANAGER, dryRun: false });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    },
    async deleteObject(type, key, { propagationPolicy, uid }) {
      try {
        await deleteObject(scopeOf(type), key, { dryRun: false, propagationPolicy, preconditions: uid ? { uid } : undefined }, APISERVER_USER);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    async updateObject(type, key, mutate, target = 'main') {
      try {
        await guardedWrite({
          scope: scopeOf(type),
          key,
          compute: (current: KubeObject | undefined) => {
            if (current === undefined) throw new ObjectError('NotFound', `${type.resource} "${key.name}" not found`);
            mutate(current);
            return current;
          },
          target,
          manager: MANAGER,
          user: APISERVER_USER,
          subresource: target === 'main' ? undefined : target,
          dryRun: false,
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
  };
}
