/**
 * What the executables start (bin/capstan, `make run`): V8's compile cache first, then the
 * one-file bundle of the server (dist/capstan.js, made by `npm run bundle` from main.ts and all
 * it imports). The cache must be on before the bundle is read, or its 6 MB are compiled again
 * at every start (about 110 ms); main.ts turns it on too late for that, being inside it.
 */
import * as nodeModule from 'node:module';

nodeModule.enableCompileCache();
require('../capstan.js');
