// What a built lab world is on disk: which server plays what, from which zone files. The namespace
// supervisor starts servers from this plan alone.
import type { Behaviour } from '../scenario/scenario-format.ts';
import type { Latency } from './latency.ts';

export interface ServedZone {
  origin: string;
  /** Zone file in BIND's full text form (signed if the zone is signed). */
  file: string;
}

export interface LabServer {
  name: string;
  addresses: string[];
  /** Real BIND answers every server; `responder` puts our misbehaving responder in front of it. */
  engine: 'bind' | 'responder';
  behaviour: Behaviour;
  zones: ServedZone[];
}

export interface WorldPlan {
  dir: string;
  hintsPath: string;
  namedConfPath: string;
  /** Port on which BIND answers for responder-fronted servers (same addresses). */
  backendPort: number;
  servers: LabServer[];
  domains: string[];
  /** With a signed root: the root's key as a BIND `trust-anchors` statement (delv -a reads it too). */
  trustAnchorsPath?: string;
  /** Set when every server answers after a delay (each is then fronted by the responder). */
  latency?: Latency;
}
