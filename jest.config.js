// Tests run from TypeScript sources through swc (no type checking here: `npm run build`
// type-checks the whole tree first, so the test run stays fast).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'], '/node_modules/jose/.+\\.js$': ['@swc/jest'] },
  // jose ships only ES modules; swc turns them into CommonJS for jest (the server itself loads them natively).
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
