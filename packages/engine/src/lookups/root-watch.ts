// Whether the root can be reached at all, for lookups made outside a test run. Every root server is
// asked for the root's SOA at once, so a network where none answers (no DNS, a firewall) is known
// after one query's wait rather than after a walk through the servers one by one; an answer the real
// root never gives (net/root-impersonation.ts) means something on the network answers in its place.
// The verdicts are Basic01's own findings, with the same tags and arguments.
import { Name, RRType } from '@app/dns';
import type { Finding } from '../finding.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { describeAnswer, hintTlds, impossibleFromRoot } from '../net/root-impersonation.ts';
import { levelOf, type Profile } from '../profile/profile.ts';

/** A lookup that could not be made; `finding`, when set, is what a test run would report about it. */
export class LookupFailure extends Error {
  readonly finding: Finding | undefined;

  constructor(message: string, finding?: Finding) {
    super(message);
    this.name = 'LookupFailure';
    this.finding = finding;
  }
}

function basic01(profile: Profile, tag: string, args: Finding['args']): Finding {
  return { module: 'BASIC', testcase: 'Basic01', tag, level: levelOf(profile, 'BASIC', tag), args, timestamp: 0 };
}

/**
 * Settles with undefined as soon as one root server gives a plausible answer, or with the failure: an
 * answer that cannot come from the root (intercepted), or no answer from any of them (unreachable).
 */
export function watchRoot(roots: readonly Nameserver[], profile: Profile): Promise<LookupFailure | undefined> {
  const tlds = hintTlds(roots.map((server) => server.name));
  const { promise, resolve } = Promise.withResolvers<LookupFailure | undefined>();
  let unanswered = roots.length;
  const silent = (): void => {
    unanswered--;
    if (unanswered > 0) return;
    const ns_list = roots.map(String).join(';');
    resolve(new LookupFailure(`No root server answered (${ns_list})`, basic01(profile, 'ROOT_SERVERS_UNREACHABLE', { ns_list })));
  };
  if (roots.length === 0) resolve(undefined);
  for (const server of roots) {
    server.query(Name.root, RRType.SOA).then((answer) => {
      if (answer === undefined) return silent();
      if (!impossibleFromRoot(answer, tlds)) return resolve(undefined);
      const args = { ns_list: server.toString(), answer: describeAnswer(answer) };
      resolve(
        new LookupFailure(
          `The root server ${args.ns_list} gave an answer the real root never gives (${args.answer})`,
          basic01(profile, 'ROOT_SERVERS_INTERCEPTED', args),
        ),
      );
    }, silent);
  }
  return promise;
}
