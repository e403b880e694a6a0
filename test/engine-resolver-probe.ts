// Runs inside a lab: prints what the engine's resolver says, as JSON, for the lab tests.
//   node engine-resolver-probe.ts <hints file> hostAddresses|parentData <name>
import { readFileSync } from 'node:fs';
import { createServiceLookups, readRootHints } from '@app/engine';

const [hints = '', method, name = ''] = process.argv.slice(2);
const resolver = createServiceLookups({ rootHints: readRootHints(readFileSync(hints, 'utf8')) });
const result = method === 'hostAddresses' ? await resolver.hostAddresses(name) : await resolver.parentData(name);
process.stdout.write(JSON.stringify(result));
