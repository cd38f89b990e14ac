// Tests run from TypeScript sources through swc (no type checking here: `npm run build`
// type-checks the whole tree first, so the test run stays fast).
// `@marcbachmann/cel-js` (server/cel) ships only ES modules, which jest's CommonJS runtime cannot
// require without --experimental-vm-modules; swc compiles that one package to CommonJS here.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest'],
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
