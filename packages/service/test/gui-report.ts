// A report laid out the way zonemaster-gui 5 lays out get_test_results (ResultModule.svelte and
// ResultGroup.svelte): findings grouped by module, then by testcase; a group gets a header (its
// title, and the button that opens it) only when testcase_descriptions has its testcase, and only
// the Unspecified group is open without one. A finding in a group with neither is never shown.
export interface GuiResult {
  module: string;
  testcase: string;
  level: string;
  message: string;
}
export interface GuiReply {
  results: GuiResult[];
  testcase_descriptions: Record<string, string>;
}

export interface GuiGroup {
  module: string;
  testcase: string;
  /** The header's text, or undefined when the GUI shows no header. */
  title: string | undefined;
  openByItself: boolean;
  results: GuiResult[];
}

export function guiGroups(reply: GuiReply): GuiGroup[] {
  const groups: GuiGroup[] = [];
  for (const result of reply.results) {
    let group = groups.find((g) => g.module === result.module && g.testcase === result.testcase);
    if (!group) {
      const { testcase } = result;
      // The GUI's own test, `testcase in descriptions`, would also take a name on Object.prototype.
      const described = Object.hasOwn(reply.testcase_descriptions, testcase);
      group = {
        module: result.module,
        testcase,
        title: testcase !== 'Unspecified' && described ? reply.testcase_descriptions[testcase] : undefined,
        openByItself: testcase === 'Unspecified',
        results: [],
      };
      groups.push(group);
    }
    group.results.push(result);
  }
  return groups;
}

/**
 * Every finding a reader of the GUI cannot reach, or that sits in a group with no title of its
 * own in testcase_descriptions, as `module testcase: message` lines.
 */
export function untitledFindings(reply: GuiReply): string[] {
  return guiGroups(reply).flatMap((group) => {
    const reachable = group.openByItself || group.title !== undefined;
    const description = Object.hasOwn(reply.testcase_descriptions, group.testcase)
      ? reply.testcase_descriptions[group.testcase]
      : undefined;
    const titled = typeof description === 'string' && description.trim() !== '';
    return reachable && titled ? [] : group.results.map((r) => `${r.module} ${r.testcase}: ${r.message}`);
  });
}
