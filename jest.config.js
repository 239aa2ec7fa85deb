/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/__test__/**/*.test.js', '<rootDir>/examples/**/*.test.ts'],
  // The examples are TypeScript, importing the package by name as an app does.
  transform: { '\\.ts$': '<rootDir>/scripts/jest-ts.js', '\\.[cm]?js$': 'babel-jest' },
  moduleNameMapper: { '^@symfonic/core$': '<rootDir>/index.js', '^@symfonic/core/langchain$': '<rootDir>/langchain/index.js' },
  testTimeout: 30000,
};
