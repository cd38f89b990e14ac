/**
 * PersistentVolumeClaims and PersistentVolumes as kube-apiserver 1.34.4 answers them
 * (fixtures/volume-and-claim-answers.json, recorded by tools/reference/record-answers.ts):
 * access modes, requests and limits, volume modes, classes, selectors, data sources, volume
 * names; volume sources, reclaim policies, node affinity, mount options, CSI, and the updates
 * each allows. A volume's claimRef is owned field by field (the PersistentVolumeSpec declares
 * the otherwise atomic ObjectReference granular there), on create, update and apply.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'volume-and-claim-answers.json'));
