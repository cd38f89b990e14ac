/** An extension server without aggregated discovery: its APIResourceList in the aggregated form, as the reference converts it. */
import { aggregatedResources } from '../../../server/aggregator/extension-discovery';

test('resources keep their facts; `x/y` entries become subresources of `x`', () => {
  expect(
    aggregatedResources([
      {
        name: 'flunders',
        singularName: 'flunder',
        namespaced: true,
        kind: 'Flunder',
        verbs: ['get', 'list', 'create'],
        shortNames: ['fl'],
        categories: ['all'],
      },
      { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'update'] },
      {
        name: 'fischers',
        singularName: 'fischer',
        namespaced: false,
        group: 'wardle.example.com',
        version: 'v1',
        kind: 'Fischer',
        verbs: ['get'],
      },
    ]),
  ).toEqual([
    {
      resource: 'flunders',
      responseKind: { group: '', version: '', kind: 'Flunder' },
      scope: 'Namespaced',
      singularResource: 'flunder',
      verbs: ['get', 'list', 'create'],
      shortNames: ['fl'],
      categories: ['all'],
      subresources: [
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get', 'update'] },
      ],
    },
    {
      resource: 'fischers',
      responseKind: { group: 'wardle.example.com', version: 'v1', kind: 'Fischer' },
      scope: 'Cluster',
      singularResource: 'fischer',
      verbs: ['get'],
    },
  ]);
});
