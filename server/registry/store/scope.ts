/**
 * What the generic store works with: the type it writes, the version the caller speaks, that
 * type's storage, and the context every write shares (registry, schema, clock, admission,
 * authorizer, feature gates, the kinds' store hooks). No HTTP request in sight: handlers,
 * controllers and reviews all call the store with one of these.
 */
import type { ObjectKey, ObjectStorage } from '../../../storage/objects/types';
import type { Admission } from '../../admission/types';
import type { Authorizer } from '../../authz/types';
import { groupVersionString, type GroupKind, type GroupResource } from '../../../api/identity';
import { invalid } from '../../status/catalogue';
import type { StatusError } from '../../status/status-error';
import type { Definitions } from '../../validation/decode';
import {
  storageGroupVersion,
  type FieldError,
  type ResourceRegistry,
  type ResourceType,
  type DeclarativeMismatchCounter,
  type ServedVersion,
  type WriteContext,
} from '../types';
import type { StoreHooks } from './hooks';
import { featureGateReader } from '../../config/feature-enabled';
import type { UserInfo } from '../../../api/user-info';
import type { WarningRecorder } from '../../request/warning-recorder';

import type { KubeObject } from '../../../api/objects';
export interface StoreContext {
  readonly registry: ResourceRegistry;
  /** OpenAPI-style definitions of the built-in kinds; absent: objects are taken as they are. */
  readonly definitions?: Definitions;
  /** The time written into creationTimestamp, deletionTimestamp and managedFields. */
  readonly now: () => Date;
  /** Mutating then validating plugins; an empty chain admits everything. */
  readonly admission: Admission;
  /** Asked for permissions beyond the request's own verb (create on apply, unsafe delete). */
  readonly authorizer?: Authorizer;
  /** The gates `--feature-gates` set; a gate it does not name has its 1.34 default. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** A kind's own steps around storage (Services: cluster IPs); absent: none. */
  readonly hooksFor?: (type: ResourceType) => StoreHooks | undefined;
  /** Where writes count their declarative validation mismatches; absent: not counted. */
  readonly declarativeMismatches?: DeclarativeMismatchCounter;
}

export interface StoreScope {
  readonly type: ResourceType;
  /** The version the caller speaks: objects in and out of the store are in it. */
  readonly version: ServedVersion;
  readonly storage: ObjectStorage;
  readonly context: StoreContext;
}

export function groupResourceOf(type: ResourceType): GroupResource {
  return { group: type.group, resource: type.resource };
}

export function apiVersionOf(scope: StoreScope): string {
  return groupVersionString({ group: scope.type.group, version: scope.version.version });
}

export function objectKeyOf(
  scope: StoreScope,
  address: { readonly namespace?: string; readonly name: string },
): ObjectKey {
  return scope.type.namespaced ? { namespace: address.namespace ?? '', name: address.name } : { name: address.name };
}

/**
 * A value, or a promise of it when a type's conversion is asynchronous (a conversion webhook).
 * Built-in conversions are synchronous, and their path stays free of promises and awaits.
 */
export type Converted<T> = T | Promise<T>;

/**
 * The stored object as the scope's version shows it. Below the top level it shares the stored
 * object (the watch cache hands one object to every reader), so its users only read it:
 * encoders do, and update functions get it from the private copy the storage gives them. A
 * deep copy here cost most of a list's CPU.
 */
export function toServedVersion(scope: StoreScope, stored: KubeObject): Converted<KubeObject> {
  const { type } = scope;
  // No closures here: this runs once per listed item and watch event.
  const object = type.readDefaults ? type.readDefaults(stored) : stored;
  if (!type.convert) return servedAs(scope, object);
  const converted = type.convert(object, { group: type.group, version: scope.version.version });
  return converted instanceof Promise ? converted.then((later) => servedAs(scope, later)) : servedAs(scope, converted);
}

function servedAs(scope: StoreScope, converted: KubeObject): KubeObject {
  return { ...converted, apiVersion: apiVersionOf(scope), kind: scope.type.kind };
}

/** Every object as the scope's version shows it: an array, or a promise of one when a conversion is asynchronous. */
export function toServedVersions(scope: StoreScope, objects: readonly KubeObject[]): Converted<KubeObject[]> {
  const served = objects.map((object) => toServedVersion(scope, object));
  return served.some((object) => object instanceof Promise) ? Promise.all(served) : (served as KubeObject[]);
}

/** A served-version object as it is stored. */
export function toStorageVersion(scope: StoreScope, object: KubeObject): Converted<KubeObject> {
  const { type } = scope;
  // The storage group may differ from the served one: events.k8s.io Events are core v1 Events.
  const target = storageGroupVersion(type);
  const stored = (converted: KubeObject): KubeObject => ({
    ...converted,
    apiVersion: groupVersionString(target),
    kind: type.kind,
  });
  if (!type.convert || (target.group === type.group && target.version === scope.version.version)) return stored(object);
  const converted = type.convert(object, target);
  return converted instanceof Promise ? converted.then(stored) : stored(converted);
}

/**
 * A write's object is prepared (defaulted, admitted, validated, credited to its manager) in the
 * version it is written in: a built-in kind's storage version, which its strategy is written
 * for; a custom resource's request version, as the reference's handler holds custom resources
 * in the request's version and converts them only to store them. So a custom resource is
 * defaulted and validated by the schema of the version the client spoke.
 */
export function preparesInServedVersion(scope: StoreScope): boolean {
  return scope.type.custom === true;
}

/** The version `toPreparedVersion` answers in, whose defaults the write gets. */
export function preparedVersion(scope: StoreScope): string {
  return preparesInServedVersion(scope) ? scope.version.version : scope.type.storageVersion;
}

/** A served-version object (a request's body, a patch's result) in the version its write is prepared in. */
export function toPreparedVersion(scope: StoreScope, served: KubeObject): Converted<KubeObject> {
  return preparesInServedVersion(scope) ? servedAs(scope, served) : toStorageVersion(scope, served);
}

/** A stored object in the version writes are prepared in: the old object admission sees on a delete. */
export function storedToPrepared(scope: StoreScope, stored: KubeObject): Converted<KubeObject> {
  return preparesInServedVersion(scope) ? toServedVersion(scope, stored) : stored;
}

/** A prepared object as it is stored. */
export function preparedToStored(scope: StoreScope, prepared: KubeObject): Converted<KubeObject> {
  return preparesInServedVersion(scope) ? toStorageVersion(scope, prepared) : prepared;
}

/** A prepared object as the scope's version shows it (a write's answer when nothing was stored). */
export function preparedToServed(scope: StoreScope, prepared: KubeObject): Converted<KubeObject> {
  return preparesInServedVersion(scope) ? prepared : toServedVersion(scope, prepared);
}

/**
 * The group and kind a built-in kind's refusal names: its Go type's, the storage group's (an
 * events.k8s.io Event is a core Event).
 */
export function refusedGroupKind(scope: StoreScope): GroupKind {
  return { group: storageGroupVersion(scope.type).group, kind: scope.type.kind };
}

/**
 * 422 Invalid from the strategy's field errors, naming the kind as the reference holds it
 * internally: by the group it is stored in (an events.k8s.io Event is a core Event there,
 * `Event "x" is invalid`).
 */
export function invalidObject(scope: StoreScope, name: string, errors: readonly FieldError[]): StatusError {
  return invalid(refusedGroupKind(scope), name, errors);
}

/** What the strategy of one write consults: who writes, where its warnings go, and the server's feature gates. */
export function writeContextOf(
  scope: StoreScope,
  write: { readonly user?: UserInfo; readonly warnings?: WarningRecorder },
): WriteContext {
  return {
    user: write.user,
    warnings: write.warnings,
    featureEnabled: featureGateReader(scope.context.featureGates ?? {}),
    declarativeMismatches: scope.context.declarativeMismatches,
    now: scope.context.now,
  };
}
