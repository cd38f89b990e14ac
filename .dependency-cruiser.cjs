// `npm run lint`: the shape of the code (DESIGN.md "Layers"), checked on every run of the tests.
// dependency-cruiser reads imports through the TypeScript compiler, so `import type` counts:
// a cycle through types alone is still a cycle a reader has to untangle.
// (eslint-plugin-import-x's no-cycle took 30 s over server/ and storage/ on this 2-core machine;
// this takes about 6 s.)

// The layers, lowest first. Each may import only from itself and the layers before it.
// A path belongs to the first layer whose pattern matches it.
const layers = [
  { name: 'api', paths: ['^api/', '^server/status/(catalogue|status-error|field-errors?)\\.ts$'] },
  // storage/ imports nothing of server/, so it may sit below the plain helpers, which then may
  // compile into its types (a selector into a storage Predicate).
  { name: 'storage', paths: ['^storage/'] },
  {
    name: 'helpers',
    paths: [
      '^server/(selectors|quantity|json|regex|cel|net|config|request)/',
      '^server/(string-order|x509-library|first-decisive)\\.ts$',
      // The reference's string-format checks (apimachinery util/validation): plain functions the
      // kinds' validation and CEL's format library share.
      '^server/validation/names\\.ts$',
    ],
  },
  {
    name: 'kinds',
    paths: [
      '^server/registry/(types|registry|strategy|type-definitions|reset-fields)\\.ts$',
      '^server/registry/(kinds|defaults|conversion)/',
      '^server/(schema|validation|table)/',
    ],
  },
  // One request's audit record and the policy that decides it (the reference's pkg/audit): the
  // response writers and handlers fill it in; the backends and the audit stage are machinery.
  { name: 'auditrecord', paths: ['^server/audit/record/'] },
  // The codecs and the response writers side by side: the writers encode through the codecs,
  // which never write a response.
  { name: 'codecs', paths: ['^server/(codec|patch|apply|fieldmanager)/', '^server/status/'] },
  { name: 'responsewriters', paths: ['^server/responsewriters/'] },
  {
    name: 'machinery',
    paths: [
      '^server/registry/(store|allocators)/',
      '^server/(admission|authz|authn|audit|quota|webhook-client|pki|kubelet|proxy|metrics|client)/',
    ],
  },
  {
    name: 'endpoints',
    paths: ['^server/(handlers|subresources|discovery|openapi|aggregator|componentstatus|apiextensions|health|debug)/'],
  },
  { name: 'top', paths: ['^server/'] },
];

const pathOf = (layer) => `(${layer.paths.join('|')})`;
// A path of layer i: matches one of its patterns and none of the layers before it.
const from = (i) => ({ path: pathOf(layers[i]), pathNot: layers.slice(0, i).map(pathOf) });
const upward = layers.flatMap((layer, i) =>
  layers.slice(i + 1).map((above, j) => ({
    name: `layer-${layer.name}-not-${above.name}`,
    comment: `${layer.name} is below ${above.name} (DESIGN.md "Layers"): it may not import it`,
    severity: 'error',
    from: from(i),
    to: from(i + 1 + j),
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'files that import each other, through types too, cannot be read or moved one at a time',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'storage-not-server',
      comment: 'storage/ is usable without the server: it never imports server/',
      severity: 'error',
      from: { path: '^storage/' },
      to: { path: '^server/' },
    },
    ...upward,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
  },
};
