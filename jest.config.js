// Tests run from TypeScript sources through swc (no type checking here: `npm run build`
// type-checks the whole tree first, so the test run stays fast).
// `@marcbachmann/cel-js` (server/cel) and `jose` (server/authn) ship only ES modules, which
// jest's CommonJS runtime cannot require without --experimental-vm-modules; swc compiles those
// packages to CommonJS here (the server itself loads them natively).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest'],
    '/node_modules/(@marcbachmann/cel-js|jose)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@marcbachmann/cel-js|jose)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
