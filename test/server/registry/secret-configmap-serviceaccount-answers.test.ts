/**
 * Secrets, ConfigMaps and ServiceAccounts as kube-apiserver 1.34.4 answers them
 * (fixtures/secret-configmap-serviceaccount-answers.json, recorded by
 * tools/reference/record-answers.ts): data keys, stringData, every secret type's required keys
 * (a docker configuration that is no JSON in encoding/json's words), immutability, sizes; and a
 * ServiceAccount whose `secrets` holds an item without a name, which the reference's field
 * manager cannot type: that write keeps no managedFields, nor do the writes after it until the
 * item goes.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'secret-configmap-serviceaccount-answers.json'));
