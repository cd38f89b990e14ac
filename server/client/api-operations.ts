/**
 * `ObjectOperations` for the server's own controllers, on the generic store every client write
 * goes through (server/registry/store/), as the identity `system:apiserver`.
 */
import { ObjectError } from '../../storage/errors';
import type { ObjectStorage } from '../../storage/objects/types';
import type { UserInfo } from '../../api/user-info';
import { operationOptions } from '../registry/store/admission';
import { createObject } from '../registry/store/create';
import { deleteObject } from '../registry/store/delete';
import type { StoreContext, StoreScope } from '../registry/store/scope';
import { updateObject } from '../registry/store/update';
import { serverSideApply } from '../apply/apply';
import { rootSchemaNode } from '../apply/schema-node';
import { apiVersionOf } from '../registry/store/scope';
import { typedForKind, withTypeDefinitions } from '../registry/type-definitions';
import type { ResourceType } from '../registry/types';
import { StatusError } from '../status/status-error';
import type { ObjectOperations } from './operations';
import { statusResetFieldsOf } from '../registry/reset-fields';

import type { KubeObject } from '../../api/objects';
export const APISERVER_USER: UserInfo = {
  name: 'system:apiserver',
  groups: ['system:authenticated', 'system:masters'],
};
const DEFAULT_MANAGER = 'kube-apiserver';

function isNotFound(error: unknown): boolean {
  return (
    (error instanceof ObjectError && error.reason === 'NotFound') ||
    (error instanceof StatusError && error.status.code === 404)
  );
}

function isAlreadyExists(error: unknown): boolean {
  return (
    (error instanceof ObjectError && error.reason === 'AlreadyExists') ||
    (error instanceof StatusError && error.status.reason === 'AlreadyExists')
  );
}

/** `manager`: the field manager the writes are recorded under (default `kube-apiserver`), as the reference's controllers name their own. */
export function apiOperations(options: {
  context: StoreContext;
  storageFor: (type: ResourceType) => ObjectStorage;
  manager?: string;
}): ObjectOperations {
  const manager = options.manager ?? DEFAULT_MANAGER;
  const scopeOf = (type: ResourceType): StoreScope => ({
    type,
    version: type.versions.find((served) => served.version === type.storageVersion) ?? type.versions[0],
    storage: options.storageFor(type),
    context: withTypeDefinitions(options.context, type),
  });
  const write = { user: APISERVER_USER, dryRun: false };
  return {
    registry: options.context.registry,
    storageFor: options.storageFor,
    async createObject(type, object) {
      try {
        await createObject(scopeOf(type), {
          ...write,
          object,
          manager,
          options: operationOptions('CreateOptions', { dryRun: false, fieldManager: manager }),
        });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    },
    async deleteObject(type, key, { propagationPolicy, uid }) {
      const deletion = { propagationPolicy, preconditions: uid ? { uid } : undefined };
      try {
        await deleteObject(scopeOf(type), {
          ...write,
          key,
          deletion,
          options: operationOptions('DeleteOptions', { dryRun: false, ...deletion }),
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    async updateObject(type, key, mutate, target = 'main') {
      try {
        await updateObject(scopeOf(type), {
          ...write,
          key,
          updatedObject: (current: KubeObject | undefined) => {
            if (current === undefined) throw new ObjectError('NotFound', `${type.resource} "${key.name}" not found`);
            mutate(current);
            return current;
          },
          target,
          manager,
          subresource: target === 'main' ? undefined : target,
          options: operationOptions('UpdateOptions', { dryRun: false, fieldManager: manager }),
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    async applyStatus(type, key, config, manager) {
      const scope = scopeOf(type);
      const schema = rootSchemaNode(scope.context.definitions, scope.version.definition);
      try {
        await updateObject(scope, {
          ...write,
          key,
          updatedObject: (current: KubeObject | undefined) => {
            if (current === undefined) throw new ObjectError('NotFound', `${type.resource} "${key.name}" not found`);
            const now = scope.context.now();
            const applied = serverSideApply({
              live: current,
              config,
              manager,
              apiVersion: apiVersionOf(scope),
              kind: type.kind,
              subresource: 'status',
              force: true,
              now,
              schema,
              scope: { allBut: statusResetFieldsOf(type) },
            });
            // The nulls the configuration set, read as the kind's types read them.
            return typedForKind(scope.context.definitions, type, scope.version.definition, applied.object).object;
          },
          target: 'status',
          manager,
          subresource: 'status',
          managedFieldsComputed: true,
          options: operationOptions('PatchOptions', { dryRun: false, fieldManager: manager, force: true }),
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
  };
}
