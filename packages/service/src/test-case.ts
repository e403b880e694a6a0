// The test case under which findings made outside any test case are filed, spelt as engine 9.0.1
// and today's backend spell it (zonemaster-gui opens that group by itself). Results stored with the
// older spelling, UNSPECIFIED, are reported with today's.
export const NO_TEST_CASE = 'Unspecified';

export const reportedTestCase = (stored: string): string => (stored.toLowerCase() === NO_TEST_CASE.toLowerCase() ? NO_TEST_CASE : stored);
