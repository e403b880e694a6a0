// The opt-in signed top of a world: the root and the test. TLD signed (keys from the key store), the
// DS of test. in the root, and the root's key handed out as the lab's trust anchor. Then a validating
// resolver finds the catalogue's signed domains secure from the top, and DNSSEC07 finds a signed DS.
// Opt-in (the demo, `lab run --signed-root`), because the engine's lab tests compare every catalogue
// domain with reference runs recorded against the unsigned top.
import { defaultDnssec, type Scenario } from './scenario-format.ts';

export const signedTopOrigins: readonly string[] = ['.', 'test.'];

/** The world with its root and test. signed where the scenarios left them unsigned. */
export function withSignedTop(scenario: Scenario): Scenario {
  return {
    ...scenario,
    zones: scenario.zones.map((zone) =>
      signedTopOrigins.includes(zone.origin) && zone.dnssec === undefined ? { ...zone, dnssec: defaultDnssec() } : zone,
    ),
  };
}
