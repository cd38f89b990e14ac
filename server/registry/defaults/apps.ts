/** apps/v1 defaults (the reference's SetDefaults_Deployment, _ReplicaSet, _StatefulSet, _DaemonSet). */
import type { KubeObject } from '../../../api/objects';
import { child, fill, fillWhenEmpty, type Json } from './fill';
import type { FeatureEnabled } from '../types';
import { defaultPodTemplateSpec } from './pod';
import { fillTemplateGeneration } from '../conversion/daemon-set-template-generation';
import { typeClaimTemplates } from '../conversion/claim-template-type';
import { showClaimSourceGroups } from '../conversion/claim-source-group';

function specOf(object: KubeObject): Json {
  return child(object as Json, 'spec');
}
// Each workload's template is a struct in the versioned types, never absent: one left out (or
// null) is an empty template, defaulted like any other, as Go decodes it.

export function defaultDeployment(deployment: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = specOf(deployment);
  fill(spec, 'replicas', 1);
  const strategy = child(spec, 'strategy');
  fillWhenEmpty(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    fill(rollingUpdate, 'maxUnavailable', '25%');
    fill(rollingUpdate, 'maxSurge', '25%');
  }
  fill(spec, 'revisionHistoryLimit', 10);
  fill(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(child(spec, 'template'), featureEnabled);
}

export function defaultReplicaSet(replicaSet: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = specOf(replicaSet);
  fill(spec, 'replicas', 1);
  defaultPodTemplateSpec(child(spec, 'template'), featureEnabled);
}

export function defaultStatefulSet(statefulSet: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = specOf(statefulSet);
  fillWhenEmpty(spec, 'podManagementPolicy', 'OrderedReady');
  const updateStrategy = child(spec, 'updateStrategy');
  // Parameters are made only with a type the client left out: RollingUpdate named without them stays so.
  if (!updateStrategy.type) {
    updateStrategy.type = 'RollingUpdate';
    child(updateStrategy, 'rollingUpdate');
  }
  const rollingUpdate = updateStrategy.rollingUpdate as Json | null | undefined;
  if (updateStrategy.type === 'RollingUpdate' && rollingUpdate != null) {
    fill(rollingUpdate, 'partition', 0);
    if (featureEnabled('MaxUnavailableStatefulSet')) fill(rollingUpdate, 'maxUnavailable', 1);
  }
  fill(spec, 'replicas', 1);
  fill(spec, 'revisionHistoryLimit', 10);
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  fillWhenEmpty(retention, 'whenDeleted', 'Retain');
  fillWhenEmpty(retention, 'whenScaled', 'Retain');
  typeClaimTemplates(statefulSet);
  for (const claim of (spec.volumeClaimTemplates as Json[] | undefined) ?? []) {
    fill(child(claim, 'spec'), 'volumeMode', 'Filesystem');
    showClaimSourceGroups(child(claim, 'spec'));
    fillWhenEmpty(child(claim, 'status'), 'phase', 'Pending');
  }
  defaultPodTemplateSpec(child(spec, 'template'), featureEnabled);
}

export function defaultDaemonSet(daemonSet: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = specOf(daemonSet);
  const updateStrategy = child(spec, 'updateStrategy');
  fillWhenEmpty(updateStrategy, 'type', 'RollingUpdate');
  if (updateStrategy.type === 'RollingUpdate') {
    const rollingUpdate = child(updateStrategy, 'rollingUpdate');
    fill(rollingUpdate, 'maxUnavailable', 1);
    fill(rollingUpdate, 'maxSurge', 0);
  }
  // The internal type holds both by value: any rollingUpdate (an OnDelete one too) comes back
  // from the reference's conversion with both, 0 where unset.
  const rollingUpdate = updateStrategy.rollingUpdate as Json | null | undefined;
  if (rollingUpdate != null) {
    fill(rollingUpdate, 'maxUnavailable', 0);
    fill(rollingUpdate, 'maxSurge', 0);
  }
  fill(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(child(spec, 'template'), featureEnabled);
  fillTemplateGeneration(daemonSet);
}
