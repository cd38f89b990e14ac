/** The reference's serviceaccount controller: every live namespace has a `default` ServiceAccount. */
import type { ObjectOperations } from '../client/operations';
import { startPerNamespaceController } from './per-namespace';

export function startServiceAccountController(operations: ObjectOperations, stop: AbortSignal): void {
  startPerNamespaceController(
    operations,
    {
      resource: 'serviceaccounts',
      name: 'default',
      async reconcile(namespace, current, type) {
        if (current !== undefined) return;
        await operations.createObject(type, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'default', namespace },
        });
      },
    },
    stop,
  );
}
