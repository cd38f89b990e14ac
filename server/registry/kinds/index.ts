/** Every built-in resource type, grouped as the API serves them. */
import type { ResourceType } from '../types';
import { admissionRegistrationKinds } from './admissionregistration';
import { apiextensionsKinds } from './apiextensions';
import { apiregistrationKinds } from './apiregistration';
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
import { LEGACY_BINDINGS, withBuiltinSubresources } from '../../subresources/builtin-slots';

export const BUILTIN_KINDS: readonly ResourceType[] = withBuiltinSubresources([
  ...coreKinds,
  LEGACY_BINDINGS,
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
  ...apiextensionsKinds,
  ...admissionRegistrationKinds,
  ...flowcontrolKinds,
  ...apiregistrationKinds,
]);
