/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/__test__/**/*.test.js'],
  testTimeout: 30000,
};
