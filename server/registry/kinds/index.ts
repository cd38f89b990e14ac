/**
 * The built-in kinds' declarations, grouped as the API serves them. What lives in the layers
 * above (subresource handlers, the CustomResourceDefinition kind of the apiextensions server) is
 * added by server/builtin-types.ts, which is what the server serves.
 */
import type { ResourceType } from '../types';
import { admissionRegistrationKinds } from './admissionregistration';
import { apiregistrationKinds } from './apiregistration';
import { apiserverInternalKinds } from './apiserverinternal';
import { appsKinds } from './apps';
import { autoscalingKinds } from './autoscaling';
import { batchKinds } from './batch';
import { certificatesKinds } from './certificates';
import { coordinationKinds } from './coordination';
import { coreKinds } from './core';
import { discoveryKinds } from './discovery';
import { eventsKinds } from './events';
import { flowcontrolKinds } from './flowcontrol';
import { networkingKinds } from './networking';
import { nodeKinds } from './node';
import { policyKinds } from './policy';
import { rbacKinds } from './rbac';
import { resourceKinds } from './resource';
import { schedulingKinds } from './scheduling';
import { storageKinds } from './storage';
import { storageMigrationKinds } from './storagemigration';

export const BUILTIN_KINDS: readonly ResourceType[] = [
  ...coreKinds,
  ...appsKinds,
  ...batchKinds,
  ...autoscalingKinds,
  ...coordinationKinds,
  ...eventsKinds,
  ...discoveryKinds,
  ...policyKinds,
  ...networkingKinds,
  ...schedulingKinds,
  ...storageKinds,
  ...nodeKinds,
  ...resourceKinds,
  ...rbacKinds,
  ...certificatesKinds,
  ...admissionRegistrationKinds,
  ...flowcontrolKinds,
  ...apiregistrationKinds,
  ...apiserverInternalKinds,
  ...storageMigrationKinds,
];
