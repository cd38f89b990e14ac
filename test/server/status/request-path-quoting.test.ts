/**
 * What a client sends comes back in messages as the reference prints it
 * (fixtures/request-path-quoting.json, recorded from kube-apiserver 1.34.4): strict decoding's
 * unknown and duplicate fields (JSON, YAML keys as yaml.v2 reads them, a patch's result), a kind or
 * version it does not know, timestamps (Go's time package quotes with `\x` bytes), label and field
 * selectors (parsed as the reference's parsers parse them, odd spaces and NUL too), query
 * parameters (integers, resourceVersionMatch, fieldValidation, dryRun, fieldManager,
 * propagationPolicy), a proxy request's name, a pod's warnings (Warning headers as Node reads their
 * bytes), an apps strategy printed as Go JSON, RBAC's descriptions and resolution errors in an
 * access review, new finalizers on an object being deleted, values that are maps or lists (a
 * selector, a custom resource's duplicate or enum value) and a path Go's HTTP server cannot parse.
 * Go's `%q` escapes controls and what it does not call printable; its JSON (named string types,
 * maps, lists) escapes `<`, `>` and `&` instead. Steps marked `setup` make the state the later ones
 * read; reviews compare their `status` only, writes that warn their Warning headers only, lists the
 * names they hold, the rest the whole answer.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'request-path-quoting.json'));
