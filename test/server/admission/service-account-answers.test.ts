/**
 * The ServiceAccount admission plugin, on in every real cluster, as kube-apiserver 1.34.4 answers
 * with it on (fixtures/service-account-answers.json, recorded by tools/reference/record-answers.ts;
 * each pod names an account the steps create, as no controller manager makes `default`): the
 * token volume on every container and init container, the opt-outs of the account and the pod,
 * a container that mounts the path itself, the account's image pull secrets, the refusals of an
 * account that enforces its mountable secrets (the annotation read as Go reads a bool), ephemeral
 * containers, and mirror pods, refused before the strategy's own checks.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'service-account-answers.json'));
