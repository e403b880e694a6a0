// Where a test case's specification is published: Zonemaster's test specifications on GitHub, one file per
// test case under its module's folder (Basic-TP/basic01.md).
const SPECIFICATIONS = 'https://github.com/zonemaster/zonemaster/blob/master/docs/public/specifications/tests';

/** The folder name of each module, as the specifications spell it. */
const FOLDERS: Readonly<Record<string, string>> = {
  ADDRESS: 'Address',
  BASIC: 'Basic',
  CONNECTIVITY: 'Connectivity',
  CONSISTENCY: 'Consistency',
  DELEGATION: 'Delegation',
  DNSSEC: 'DNSSEC',
  NAMESERVER: 'Nameserver',
  SYNTAX: 'Syntax',
  ZONE: 'Zone',
};

/** The specification of a test case such as Basic01, or undefined for what has none (UNSPECIFIED, SYSTEM). */
export function specificationUrl(module: string, testcase: string): string | undefined {
  const folder = FOLDERS[module.toUpperCase()];
  if (folder === undefined || !/^[a-z]+\d{2}$/i.test(testcase)) return undefined;
  return `${SPECIFICATIONS}/${folder}-TP/${testcase.toLowerCase()}.md`;
}
