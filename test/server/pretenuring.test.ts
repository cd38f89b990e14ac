// The module object itself (a namespace import would be a copy that the spy does not reach).
import v8 = require('node:v8');
import { stopPretenuring } from '../../server/pretenuring';

// Whether V8 pretenures a site depends on when its young collections run, which a test cannot
// pin down on a shared machine (a child process trained the same way grew its old generation by
// 0 to 11 MB from one run to the next). What the server relies on is that the flag V8 reads at
// each collection is turned off; the effect is measured by the side-by-side benchmark.
describe('stopPretenuring', () => {
  afterEach(() => jest.restoreAllMocks());

  it('turns off allocation-site pretenuring for the rest of the process', () => {
    const setFlags = jest.spyOn(v8, 'setFlagsFromString');
    stopPretenuring();
    expect(setFlags).toHaveBeenCalledWith('--no-allocation-site-pretenuring');
  });
});
